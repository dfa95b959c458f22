#!/usr/bin/env bash
# `seqfuse embed` against Hugging Face transformers on the GPU machine
# (scripts/embed-bench.py; issue #5's "Performance"), with the carried
# bundle's seqfuse and the bundle's mmseqs2-examples proteins. Writes
# $OUT/embed-bench.md (and prints it). Standalone, or as device-run.sh's
# extra step:
#   bash scripts/device-embed-bench.sh
#   DEVICE_EXTRA=scripts/device-embed-bench.sh bash scripts/device-run.sh --no-cpu-tests
# Needs bundle/ made with `scripts/device-bundle.sh --data` (for
# bundle/data/mmseqs_DB.fasta.gz) and python3 with torch + transformers.
# Environment: EMBED_BENCH_MODELS (default 8M,35M; also 150M,650M),
# EMBED_BENCH_COUNT (default 2000 proteins), EMBED_BENCH_ARGS (more
# embed-bench.py arguments, e.g. "--runs 5 --tpb default,65536"),
# OUT (default ./device-out). 8M + 35M take about 1.5 to 2 minutes on an H100.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"

die() { echo "device-embed-bench: error: $*" >&2; exit 1; }

[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data here and carry 'bundle'"
proteins=bundle/data/mmseqs_DB.fasta.gz
[ -f "$proteins" ] || die "no $proteins: make the bundle with scripts/device-bundle.sh --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle

# shellcheck disable=SC2206  # word splitting of EMBED_BENCH_ARGS is intended
extra=(${EMBED_BENCH_ARGS:-})
exec python3 scripts/embed-bench.py --seqfuse bundle/bin/seqfuse --proteins "$proteins" \
  --count "${EMBED_BENCH_COUNT:-2000}" --models "${EMBED_BENCH_MODELS:-8M,35M}" \
  --out "$OUT/embed-bench.md" "${extra[@]}"
