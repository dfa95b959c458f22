#!/usr/bin/env bash
# The protein search (issue #3's workload: mmseqs2-examples' 500 queries
# against its 20,000 proteins, SW, BLOSUM62 11/1, top 10) on the GPU with the
# search kernel in 16-bit lanes (the default) and in 32-bit lanes
# (SEQFUSE_ALIGN_LANES=32), alternating, three runs each, with the trace
# (flagged and rerun pairs) and the summary line (end-to-end and device
# GCUPS); the two outputs must be identical. LANES_BASELINE=PATH (another
# seqfuse build, carried along) runs after ours in each round, 16-bit lanes,
# same check. Needs bundle/ with --data. Run as device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-align-lanes.sh bash scripts/device-run.sh
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
sf=bundle/bin/seqfuse
dir=/tmp/seqfuse-lanes
mkdir -p "$dir"
gzip -dc bundle/data/mmseqs_DB.fasta.gz >"$dir/DB.fasta" || exit 1
gzip -dc bundle/data/mmseqs_QUERY.fasta.gz >"$dir/QUERY.fasta" || exit 1
threads=$(nproc)
for run in 1 2 3; do
  for lanes in 16 32; do
    echo "== protein search, $lanes-bit lanes, run $run"
    SEQFUSE_ALIGN_LANES=$lanes SEQFUSE_TRACE=1 \
      /usr/bin/time -f "wall %e s" "$sf" align-sw "$dir/QUERY.fasta" "$dir/DB.fasta" \
      -t "$threads" -o "$dir/hits$lanes.tsv" 2>&1
  done
  if [ -n "${LANES_BASELINE:-}" ]; then
    echo "== protein search, baseline $LANES_BASELINE, run $run"
    SEQFUSE_TRACE=1 with_bundle_libs \
      /usr/bin/time -f "wall %e s" "$LANES_BASELINE" align-sw "$dir/QUERY.fasta" "$dir/DB.fasta" \
      -t "$threads" -o "$dir/hits-baseline.tsv" 2>&1
  fi
done
cmp "$dir/hits16.tsv" "$dir/hits32.tsv" && echo "16-bit and 32-bit outputs identical"
if [ -n "${LANES_BASELINE:-}" ]; then
  cmp "$dir/hits16.tsv" "$dir/hits-baseline.tsv" && echo "baseline output identical" ||
    echo "BASELINE OUTPUT DIFFERS"
fi
# The search kernels' SASS, for counting instructions per cell (this
# machine's toolkit has cuobjdump; the development machine's does not).
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$cuobjdump" ] && [ -n "${OUT:-}" ]; then
  "$cuobjdump" -sass bundle/bin/seqfuse 2>/dev/null |
    awk '/Function : /{keep = ($0 ~ /score_db/)} keep' >"$OUT/align-search-sass.txt"
  echo "SASS of the search kernels: $(grep -c 'Function : ' "$OUT/align-search-sass.txt") functions, $(wc -l <"$OUT/align-search-sass.txt") lines -> \$OUT/align-search-sass.txt"
fi
