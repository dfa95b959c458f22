#!/usr/bin/env bash
# Where a whole `seqfuse embed` run's wall time goes on the GPU machine:
# SEQFUSE_TRACE phase times (model load, device start, input, engine,
# first batch, all batches, output, exit) for the benchmark's input (the
# first 2,000 proteins of the bundle's mmseqs2-examples DB) on a random
# esm2_t6_8M-shaped model (scripts/make-random-esm.py; no torch needed).
# Three runs per dtype; the first warms the page cache. Standalone, or as
# device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-embed-trace.sh bash scripts/device-run.sh --no-cpu-tests
# Environment: EMBED_TRACE_SHAPE (t6, t12, t30; default t6), EMBED_TRACE_DTYPES
# (default "bf16"), EMBED_TRACE_ARGS (more embed options).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
die() { echo "device-embed-trace: error: $*" >&2; exit 1; }
[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data here and carry 'bundle'"
proteins=bundle/data/mmseqs_DB.fasta.gz
[ -f "$proteins" ] || die "no $proteins: make the bundle with --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/make-random-esm.py "$work" "${EMBED_TRACE_SHAPE:-t6}" 1 >/dev/null
# The first 2,000 records, as scripts/embed-bench.py takes them.
first_records 2000 "$proteins" >"$work/proteins.fa"
echo "device-embed-trace: $(grep -c '^>' "$work/proteins.fa") proteins, model ${EMBED_TRACE_SHAPE:-t6}"
for dtype in ${EMBED_TRACE_DTYPES:-bf16}; do
  for run in 1 2 3; do
    echo "--- $dtype, run $run"
    start=$(date +%s%N)
    # shellcheck disable=SC2086  # EMBED_TRACE_ARGS is split on purpose
    SEQFUSE_TRACE=1 bundle/bin/seqfuse embed --model "$work/model" --device gpu --dtype "$dtype" \
      --format npy -o "$work/out.npy" ${EMBED_TRACE_ARGS:-} "$work/proteins.fa"
    echo "wall: $(( ($(date +%s%N) - start) / 1000000 )) ms"
  done
done
