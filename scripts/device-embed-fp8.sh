#!/usr/bin/env bash
# Issue #21's --dtype fp8 on the GPU machine, in one call: the fp8 tests
# (e4m3 GEMMs, LayerNorm's e4m3 output, every ESM-2 fixture against
# transformers and the CPU engine), the GEMM rates of one layer in bf16 and
# fp8 (seqfuse_tests "linear GEMM: timing*"), then `seqfuse embed` in bf16
# and fp8 against Hugging Face's EsmModel on random weights of the real
# ESM-2 shapes (scripts/embed-bench.py: HF fp32 as the cosine reference, HF
# bf16 sorted batches as its best). Writes $OUT/embed-fp8.md and
# $OUT/embed-bench.md.
# Environment: FP8_BENCH_MODELS (650M), FP8_BENCH_COUNT (2000 proteins),
# FP8_BENCH_TESTS (1; 0 skips the tests and the GEMM timing), FP8_BENCH_HF
# (1; 0 skips the run against HF). The 650M checkpoint of the forward-pass
# rounds comes from scripts/make-random-esm.py (ATTN_BENCH_SHAPE, t33).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
die() { echo "device-embed-fp8: error: $*" >&2; exit 1; }
[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data and carry 'bundle'"
[ -f bundle/data/mmseqs_DB.fasta.gz ] || die "no bundle/data/mmseqs_DB.fasta.gz: make the bundle with --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle
export SEQFUSE_TEST_DATA_DIR=${SEQFUSE_TEST_DATA_DIR:-$repo/tests/data}

page=$OUT/embed-fp8.md
{
  echo "# --dtype fp8 on the GPU machine ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "- machine: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -n1)"
  echo "- seqfuse: $(bundle/bin/seqfuse --version 2>&1 | head -n1)"
  echo
} >"$page"
if [ "${FP8_BENCH_TESTS:-1}" = 1 ]; then
  {
    echo "## Tests"
    echo
    echo '```'
    bundle/bin/seqfuse_tests "linear GEMM: e4m3*" 2>&1 | tail -n 40
    bundle/bin/seqfuse_tests "LayerNorm on the device*" "linear GEMM equals*" 2>&1 | tail -n 2
    bundle/bin/seqfuse_tests "embed GPU*" 2>&1 | grep -E "^embed GPU (fp8|bf16)|worst cosine over|passed|failed|FAILED" || true
    echo '```'
    echo
    echo "## One layer's GEMMs, bf16 and fp8 (65,536 rows)"
    echo
    echo '```'
    bundle/bin/seqfuse_tests "linear GEMM: timing*" 2>&1 | grep '^\[gemm timing\]' | grep -v ', mma' || echo "(the timing case failed)"
    echo '```'
    echo
  } >>"$page"
fi
# The forward pass alone, rounds interleaved: fp32 (the cosines' reference),
# bf16, fp8, fp8 with cuBLASLt's fast accumulation.
ATTN_BENCH_KERNEL=0 ATTN_BENCH_VARIANTS="fp32 current fp8 fp8-fast" ATTN_BENCH_PAGE=fp8 \
  bash scripts/device-embed-forward.sh >/dev/null
cat "$OUT/embed-forward-fp8.md" >>"$page"
[ "${FP8_BENCH_HF:-1}" = 1 ] || { cat "$page"; exit 0; }
python3 scripts/embed-bench.py --seqfuse bundle/bin/seqfuse --proteins bundle/data/mmseqs_DB.fasta.gz \
  --count "${FP8_BENCH_COUNT:-2000}" --models "${FP8_BENCH_MODELS:-650M}" --dtypes bf16,fp8 \
  --tpb default --hf-sorted-tokens 16384 --out "$OUT/embed-bench.md" >/dev/null
cat "$OUT/embed-bench.md" >>"$page"
cat "$page"
