#!/usr/bin/env bash
# One call on the GPU machine for a change to the GPU search (issue 18): the
# [gpu][align] tests, the host costs before a first launch ([align-bench]),
# then scripts/device-align-cudasw.sh on the big search (10 queries x 1.81 G
# residues) and the small one (500 x 20,000), each with the baseline build
# at bundle/baseline/seqfuse timed in the same runs (output compared), and
# SEQFUSE_TRACE runs of each build on each search beside the whole
# process's time (what the trace's last line leaves out is the exit), TRACES
# (default 1) of each. Writes everything under $OUT (8 files); prints the
# summary lines.
#   OUT=$OUT RUNS=5 bash scripts/device-align-check.sh
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
export SEQFUSE_TEST_DATA_DIR=$repo/tests/data
base=bundle/baseline/seqfuse
runs=${RUNS:-5}
threads=$(nproc)
work=${CUDASW_WORK:-/tmp/seqfuse-cudasw}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
bundle/bin/seqfuse_tests "[gpu][align]" >"$OUT/tests.txt" 2>&1
tail -n 3 "$OUT/tests.txt"
bundle/bin/seqfuse_tests "[align-bench]" 2>&1 | grep 'target layout' | tee "$OUT/host-bench.txt"
# traced NAME: a traced run of each build on the current $work files, all
# appended to $OUT/traces.txt (at most 8 files come back from the machine).
traced() {
  for build in bundle/bin/seqfuse "$base"; do
    local t0
    echo "## $1, $build" >>"$OUT/traces.txt"
    t0=$(now_ms)
    SEQFUSE_TRACE=1 "$build" align-sw "$work/Q.fasta" "$work/DB.sfdb" --top 10 -t "$threads" \
      -o /dev/null 2>>"$OUT/traces.txt"
    echo "whole process: $(($(now_ms) - t0)) ms" >>"$OUT/traces.txt"
  done
}
OUT=$OUT SEQFUSE_BASELINE=$base RUNS=$runs CUDASW_TAG=big bash scripts/device-align-cudasw.sh \
  >"$OUT/big.log" 2>&1
for ((i = 0; i < ${TRACES:-1}; i++)); do traced big; done
# FASTA_RUNS=N: the big search from its FASTA (the path without align-db),
# each build N times interleaved, medians, outputs compared with each other
# and with the .sfdb run's; into traces.txt.
fasta_runs=${FASTA_RUNS:-0}
if ((fasta_runs > 0)); then
  fasta_ms() {  # fasta_ms BUILD TAG: one search from the FASTA, its wall ms
    local t0
    t0=$(now_ms)
    "$1" align-sw "$work/Q.fasta" "$work/DB.fasta" --top 10 -t "$threads" -q \
      -o "$work/fasta-$2.tsv" || return 1
    echo $(($(now_ms) - t0))
  }
  bin_ms=() base_ms=()
  for ((i = 0; i < fasta_runs; i++)); do
    bin_ms+=("$(fasta_ms bundle/bin/seqfuse bin)") base_ms+=("$(fasta_ms "$base" baseline)")
  done
  {
    echo "## fasta (the big search from DB.fasta), ms: bin ${bin_ms[*]} (median $(median_of "${bin_ms[@]}"));" \
      "baseline ${base_ms[*]} (median $(median_of "${base_ms[@]}"))"
    echo "fasta outputs: bin vs baseline $(cmp -s "$work/fasta-bin.tsv" "$work/fasta-baseline.tsv" &&
      echo identical || echo DIFFERENT); bin vs its .sfdb run $(cmp -s "$work/fasta-bin.tsv" \
      "$work/seqfuse.tsv" && echo identical || echo DIFFERENT)"
  } >>"$OUT/traces.txt"
fi
OUT=$OUT SEQFUSE_BASELINE=$base RUNS=$runs CUDASW_QUERIES=all CUDASW_COPIES=1 CUDASW_TAG=small \
  bash scripts/device-align-cudasw.sh >"$OUT/small.log" 2>&1
for ((i = 0; i < ${TRACES:-1}; i++)); do traced small; done
grep -E "search, median|best:|Baseline" "$OUT"/align-cudasw-*.md
grep -E "^## |kernels busy|TCUPS|whole process|fasta outputs" "$OUT/traces.txt"
