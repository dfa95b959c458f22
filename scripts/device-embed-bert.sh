#!/usr/bin/env bash
# `seqfuse embed` against Hugging Face transformers' BertModel on a
# ProtBERT-shaped random model (scripts/embed-bench-bert.py; issue #21), on
# the GPU machine with the carried bundle's seqfuse and the bundle's
# mmseqs2-examples proteins. Writes $OUT/embed-bench-bert.md (and prints it).
#   bash scripts/device-embed-bert.sh
#   DEVICE_EXTRA=scripts/device-embed-bert.sh bash scripts/device-run.sh --no-cpu-tests
# Needs bundle/ made with `scripts/device-bundle.sh --data` and python3 with
# torch + transformers. Environment: EMBED_BERT_COUNT (default 500 proteins,
# about 2 minutes on an H100), EMBED_BERT_ARGS (more arguments, e.g.
# "--runs 5"), OUT (default ./device-out).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"

die() { echo "device-embed-bert: error: $*" >&2; exit 1; }

[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data here and carry 'bundle'"
proteins=bundle/data/mmseqs_DB.fasta.gz
[ -f "$proteins" ] || die "no $proteins: make the bundle with scripts/device-bundle.sh --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle

# shellcheck disable=SC2206  # word splitting of EMBED_BERT_ARGS is intended
extra=(${EMBED_BERT_ARGS:-})
exec python3 scripts/embed-bench-bert.py --seqfuse bundle/bin/seqfuse --proteins "$proteins" \
  --count "${EMBED_BERT_COUNT:-500}" --out "$OUT/embed-bench-bert.md" "${extra[@]}"
