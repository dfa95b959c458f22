#!/usr/bin/env bash
# kmer-count at scale on the GPU machine (issue #4): 50 M reads of 150 bp
# (10 files of 5 M, simulated from the E. coli genome of ragout-examples with
# 1% substitutions, seeds 7000..7009; 15 GB of FASTQ) counted with k = 31
# under -m 4, a cap below the table's size (640 M distinct k-mers, ~7.7 GB),
# so rounds spill to disk and are merged on every thread. Prints the phase
# trace, wall time, peak host memory (max RSS) and peak device memory
# (nvidia-smi sampled every 100 ms), and the histogram's first lines. Needs
# bundle/ with --data (the genome seed). Run as device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-kmer-scale.sh bash scripts/device-run.sh
set -uo pipefail
sf=bundle/bin/seqfuse
sim=bundle/bin/seqfuse-simulate-reads
genome=bundle/data/ecoli_MG1655.fasta.gz
work=${KMER_SCALE_WORK:-/tmp/seqfuse-scale}
files=${KMER_SCALE_FILES:-10}
threads=$(nproc)
[ -x "$sim" ] && [ -f "$genome" ] || { echo "need $sim and $genome (device-bundle.sh --data)"; exit 1; }
mkdir -p "$work"
start=$(date +%s%N)
for i in $(seq 0 $((files - 1))); do
  [ -s "$work/part$i.fq" ] || "$sim" "$genome" 5000000 150 0.01 $((7000 + i)) >"$work/part$i.fq" &
done
wait
echo "== input: $files x 5 M reads, $(du -sh "$work" | cut -f1), made in $((($(date +%s%N) - start) / 1000000)) ms"
nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$work/gpu-mem.txt" &
sampler=$!
SEQFUSE_TRACE=1 /usr/bin/time -f "wall %e s, peak RSS %M KB" \
  "$sf" kmer-count -k 31 -t "$threads" -m 4 --histo "$work/h.txt" "$work"/part*.fq 2>&1
status=$?
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
echo "== peak device memory: $(sort -n "$work/gpu-mem.txt" | tail -n1) MiB (nvidia-smi, every 100 ms; idle $(sort -n "$work/gpu-mem.txt" | head -n1) MiB)"
echo "== histogram: $(wc -l <"$work/h.txt") lines; first: $(head -n3 "$work/h.txt" | tr '\n' ' ')"
rm -f "$work/h.txt"
exit $status
