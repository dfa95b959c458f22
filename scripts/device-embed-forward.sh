#!/usr/bin/env bash
# Issue #21 on the GPU machine: the tensor-core attention kernel timed alone
# in each block layout (seqfuse_tests "attention kernels: timing*"), then
# the ESM-2 650M-shaped forward pass of `seqfuse embed` (random weights from
# scripts/make-random-esm.py t33, the first ATTN_BENCH_COUNT proteins of the
# bundle's mmseqs2-examples DB, bf16) for each build and layout, rounds
# interleaved, forward seconds from the summary line and the whole
# process's wall milliseconds; the embeddings of
# every variant against the first one's (worst cosine per protein).
#   bundle/baseline/seqfuse  an earlier build to time beside this one (optional)
# Environment: ATTN_BENCH_COUNT (2000), ATTN_BENCH_ROUNDS (3),
# ATTN_BENCH_SHAPE (make-random-esm.py's t6 ... t33, or bert / t5: ProtBERT's
# or ProtT5-XL's shape from embed-bench-family.py --save-model; t33),
# ATTN_BENCH_DTYPE (bf16),
# ATTN_BENCH_KERNEL (1; 0 skips the kernel timing),
# ATTN_BENCH_VARIANTS (default "baseline current": bundle/baseline/seqfuse,
# where it exists, and this build; 4x16, 8x16 or 4x32: this build with
# SEQFUSE_ATTENTION_LAYOUT set; gemm-cublaslt, gemm-mma or gemm-tiled: this
# build with SEQFUSE_EMBED_GEMM set; fp32 or fp16: this build with that
# --dtype, e.g. first, as the cosines' reference). Writes $OUT/embed-forward.md (or
# $OUT/embed-forward-$ATTN_BENCH_PAGE.md with ATTN_BENCH_PAGE set).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
die() { echo "device-embed-forward: error: $*" >&2; exit 1; }
[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data and carry 'bundle'"
proteins=bundle/data/mmseqs_DB.fasta.gz
[ -f "$proteins" ] || die "no $proteins: make the bundle with --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle

count=${ATTN_BENCH_COUNT:-2000}
rounds=${ATTN_BENCH_ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shape=${ATTN_BENCH_SHAPE:-t33}
dtype=${ATTN_BENCH_DTYPE:-bf16}
case $shape in
  bert | t5) python3 scripts/embed-bench-family.py --family "$shape" --save-model "$work/model" ;;
  *) python3 scripts/make-random-esm.py "$work" "$shape" 1 >/dev/null ;;
esac
first_records "$count" "$proteins" >"$work/proteins.fa"

page=$OUT/embed-forward${ATTN_BENCH_PAGE:+-$ATTN_BENCH_PAGE}.md
{
  echo "# Attention kernel and an ESM-2 forward pass ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "- machine: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -n1)"
  echo "- seqfuse: $(bundle/bin/seqfuse --version 2>&1 | head -n1)"
  [ -x bundle/baseline/seqfuse ] && echo "- baseline: $(bundle/baseline/seqfuse --version 2>&1 | head -n1)"
  echo "- input: the first $count mmseqs2-examples proteins, random weights of the $shape shape, $dtype"
  echo
  if [ "${ATTN_BENCH_KERNEL:-1}" = 1 ]; then
    echo "## The kernel alone (seqfuse_tests \"attention kernels: timing*\")"
    echo
    echo '```'
    bundle/bin/seqfuse_tests "attention kernels: timing*" 2>&1 | grep '^\[attention timing\]' || echo "(the timing case failed)"
    echo '```'
    echo
  fi
  echo "## seqfuse embed, $shape shape, $dtype: forward seconds (summary line)"
  echo
} >"$page"

variants=()
for v in ${ATTN_BENCH_VARIANTS:-baseline current}; do
  [ "$v" = baseline ] && [ ! -x bundle/baseline/seqfuse ] && continue
  variants+=("$v")
done
declare -A forward wall
for round in $(seq "$rounds"); do
  for v in "${variants[@]}"; do
    bin=bundle/bin/seqfuse
    env=()
    variant_dtype=$dtype
    case $v in
      baseline) bin=bundle/baseline/seqfuse ;;
      current) ;;
      fp32 | fp16) variant_dtype=$v ;;
      gemm-*) env=(SEQFUSE_EMBED_GEMM="${v#gemm-}") ;;
      *x*) env=(SEQFUSE_ATTENTION_LAYOUT="$v") ;;
    esac
    rm -f "$work/$v.npy"
    start=$(now_ms)
    env "${env[@]}" "$bin" embed --model "$work/model" --device gpu --dtype "$variant_dtype" --format npy \
      -o "$work/$v.npy" "$work/proteins.fa" 2>"$work/$v.err" >/dev/null ||
      { tail -n 5 "$work/$v.err" >&2; die "$v failed"; }
    line=$(grep '^seqfuse embed:' "$work/$v.err" | tail -n1)
    # "N sequences, ... (forward R [k|M]sequences/s, ...": forward seconds = N / R.
    secs=$(echo "$line" | awk '{ n = $3; for (i = 1; i <= NF; ++i) if ($i == "(forward") { r = $(i + 1); u = $(i + 2) }
      if (u ~ /^k/) r *= 1e3; if (u ~ /^M/) r *= 1e6; printf "%.3f", n / r }')
    forward[$v]="${forward[$v]:-} $secs"
    wall[$v]="${wall[$v]:-} $(($(now_ms) - start))"
    echo "round $round $v: $line" >>"$work/lines.txt"
  done
done
{
  echo "| variant | forward s (rounds) | median | whole process ms (rounds) | median |"
  echo "|---|---|---|---|---|"
  for v in "${variants[@]}"; do
    # shellcheck disable=SC2086  # the lists are split on purpose
    echo "| $v |${forward[$v]} | $(median_of ${forward[$v]}) |${wall[$v]} | $(median_of ${wall[$v]}) |"
  done
  echo
  echo '```'
  cat "$work/lines.txt"
  echo '```'
  echo
  echo "Worst cosine per protein against ${variants[0]}:"
  echo
  python3 - "$work" "${variants[@]}" <<'EOF'
import sys
import numpy as np
work, names = sys.argv[1], sys.argv[2:]
ref = np.load(f"{work}/{names[0]}.npy").astype(np.float64)
for name in names[1:]:
    got = np.load(f"{work}/{name}.npy").astype(np.float64)
    cos = (ref * got).sum(1) / np.linalg.norm(ref, axis=1) / np.linalg.norm(got, axis=1)
    print(f"- {name}: {cos.min():.7f} over {len(cos)} proteins")
EOF
} >>"$page"
cat "$page"
