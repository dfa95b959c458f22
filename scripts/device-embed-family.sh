#!/usr/bin/env bash
# `seqfuse embed` against Hugging Face transformers on a ProtBERT- or
# ProtT5-XL-shaped random model (scripts/embed-bench-family.py; issue #21),
# on the GPU machine with the carried bundle's seqfuse and the bundle's
# mmseqs2-examples proteins. Writes $OUT/embed-bench-FAMILY.md (and prints it).
#   EMBED_FAMILY=t5 bash scripts/device-embed-family.sh
#   DEVICE_EXTRA=scripts/device-embed-family.sh bash scripts/device-run.sh --no-cpu-tests
# Needs bundle/ made with `scripts/device-bundle.sh --data` and python3 with
# torch + transformers. Environment: EMBED_FAMILY (bert, the default, or t5),
# EMBED_COUNT (default 500 proteins, about 2 minutes on an H100 for bert),
# EMBED_ARGS (more arguments, e.g. "--runs 5"), OUT (default ./device-out).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"

die() { echo "device-embed-family: error: $*" >&2; exit 1; }

[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data here and carry 'bundle'"
proteins=bundle/data/mmseqs_DB.fasta.gz
[ -f "$proteins" ] || die "no $proteins: make the bundle with scripts/device-bundle.sh --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle

family=${EMBED_FAMILY:-bert}
# shellcheck disable=SC2206  # word splitting of EMBED_ARGS is intended
extra=(${EMBED_ARGS:-})
exec python3 scripts/embed-bench-family.py --family "$family" --seqfuse bundle/bin/seqfuse \
  --proteins "$proteins" --count "${EMBED_COUNT:-500}" --out "$OUT/embed-bench-$family.md" \
  "${extra[@]}"
