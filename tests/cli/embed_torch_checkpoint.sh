#!/usr/bin/env bash
# embed reads PyTorch's checkpoint format (pytorch_model.bin) as it reads
# safetensors (#21): each test model rewritten by scripts/make-torch-checkpoint.py
# (torch.save's layout, biases sharing one storage at offsets) embeds to the
# same bytes; hostile and broken files fail with one line, exit 1, no output,
# and never run pickled code.
# Usage: embed_torch_checkpoint.sh SEQFUSE TESTS_DATA_DIR
set -uo pipefail
sf=$1 data=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
make=$repo/scripts/make-torch-checkpoint.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
proteins=$work/p.fa
awk '/^>/{keep = $1 != ">all_unknown"} keep' "$data/embed/proteins.fa" >"$proteins"
passed=0 failed=0
check() {  # check NAME CONDITION...
  local name=$1
  shift
  if "$@"; then passed=$((passed + 1)); else echo "FAIL: $name" >&2; failed=$((failed + 1)); fi
}
for m in esm_hd16_fp32_hub esm_hd32_bf16_hub esm_hd24_fp16_saved esm_hd64_fp32_saved; do
  mkdir -p "$work/$m"
  cp "$data/embed/$m/config.json" "$work/$m/"
  python3 "$make" "$data/embed/$m/model.safetensors" "$work/$m/pytorch_model.bin" || exit 1
  for pool in mean none; do
    "$sf" embed -q --device cpu --model "$data/embed/$m" --pool $pool "$proteins" -o "$work/a.tsv" &&
      "$sf" embed -q --device cpu --model "$work/$m" --pool $pool "$proteins" -o "$work/b.tsv"
    check "$m --pool $pool: runs" test $? = 0
    check "$m --pool $pool: same bytes as safetensors" cmp -s "$work/a.tsv" "$work/b.tsv"
  done
done
declare -A expect=(
  [code]="data.pkl: the name '(posix|os).system' is refused"
  [deflated]="is compressed \(ZIP method 8\)"
  [strided]="tensor 'a.weight' is not contiguous in its storage"
  [no-storage]="tensor 'a.bias' names storage '1', which the archive lacks"
  [truncated]="is truncated or not a PyTorch checkpoint"
)
for kind in "${!expect[@]}"; do
  dir=$work/bad-$kind
  mkdir -p "$dir"
  cp "$data/embed/esm_hd16_fp32_hub/config.json" "$dir/"
  python3 "$make" --bad "$kind" "$dir/pytorch_model.bin" || exit 1
  "$sf" embed --device cpu --model "$dir" "$proteins" -o "$work/c.tsv" 2>"$work/err.txt"
  check "$kind: exit 1" test $? = 1
  check "$kind: one line" test "$(wc -l <"$work/err.txt")" = 1
  check "$kind: says why" grep -qE "^seqfuse embed: error: .*${expect[$kind]}" "$work/err.txt"
  check "$kind: no output" test ! -e "$work/c.tsv"
  check "$kind: no pickled code ran" test -z "$(grep 'pickled code ran' "$work/err.txt")"
done
echo "embed torch checkpoints: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
