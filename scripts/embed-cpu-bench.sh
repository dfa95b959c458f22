#!/usr/bin/env bash
# CPU speed of `seqfuse embed` on a random model of a real ESM-2 shape:
# thread scaling, batch size, and transformers' EsmModel on the same CPU
# (when python3 has torch and transformers: the GPU machine does).
#   bash scripts/embed-cpu-bench.sh SEQFUSE [t6|t12|t30] [PROTEINS]
# On the GPU machine, with a bundle carried, e.g.:
#   LD_LIBRARY_PATH=bundle/lib bash scripts/embed-cpu-bench.sh bundle/bin/seqfuse t6
set -euo pipefail
seqfuse=$(realpath "$1")
shape=${2:-t6}
count=${3:-200}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "embed-cpu-bench: $(nproc) threads, $(lscpu | sed -n 's/^Model name: *//p'), shape $shape"
python3 "$here/make-random-esm.py" "$work" "$shape" "$count"
threads=1
while [ "$threads" -le "$(nproc)" ]; do
  "$seqfuse" embed --model "$work/model" "$work/proteins.fa" -t "$threads" \
    -o "$work/t$threads.tsv" 2>&1 | tail -1
  threads=$((threads * 2))
done
last=$((threads / 2))
cmp -s "$work/t1.tsv" "$work/t$last.tsv" && echo "1 and $last threads: identical output" \
  || echo "1 and $last threads: outputs differ"
for tpb in 1 16384; do
  "$seqfuse" embed --model "$work/model" "$work/proteins.fa" -t "$last" --toks-per-batch "$tpb" \
    -o /dev/null 2>&1 | tail -1 | sed "s/^/--toks-per-batch $tpb: /"
done
if python3 -c 'import torch, transformers' 2>/dev/null; then
  for t in "$last" 1; do
    python3 "$here/embed-vs-torch.py" "$work/model" "$work/proteins.fa" "$work/t$last.tsv" "$t" \
      2>&1 | grep '^torch'
  done
fi
