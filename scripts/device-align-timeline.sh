#!/usr/bin/env bash
# Where the big-database search's device time goes (issue #18 part 2): the
# 10 X-free mmseqs2-examples queries against its 20,000 proteins repeated
# TIMELINE_COPIES times (default 200: 1.81 G residues) from a .sfdb, once
# with SEQFUSE_TRACE and once under Nsight Systems (kernel summary and the
# GPU trace of kernels and copies; TIMELINE_NCU=1: ncu on the first 16-bit
# launch). Writes $OUT/align-timeline[-$TIMELINE_TAG].txt.
# Run from the repo root with bundle/ (--data) carried.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
page=$OUT/align-timeline${TIMELINE_TAG:+-$TIMELINE_TAG}.txt
work=${TIMELINE_WORK:-/tmp/seqfuse-timeline}
mkdir -p "$work"
sf=${SEQFUSE_BIN:-bundle/bin/seqfuse}
copies=${TIMELINE_COPIES:-200}
threads=$(nproc)
{
  echo "# device-align-timeline.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $copies copies, SEQFUSE_ALIGN_LONG=${SEQFUSE_ALIGN_LONG:-default}"
  echo "# machine: $(nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | head -n1)"
} >"$page"
if [ ! -s "$work/DB.sfdb" ]; then
  gzip -dc bundle/data/mmseqs_DB.fasta.gz >"$work/DB1.fasta"
  gzip -dc bundle/data/mmseqs_QUERY.fasta.gz |
    awk '/^>/ { if (name != "" && seq !~ /X/ && ++n <= 10) print name "\n" seq; name = $0; seq = ""; next }
      { seq = seq $0 }' >"$work/Q.fasta"
  for ((i = 0; i < copies; i++)); do cat "$work/DB1.fasta"; done >"$work/DB.fasta"
  "$sf" align-db "$work/DB.fasta" -o "$work/DB.sfdb" -t "$threads" -q || exit 1
  rm -f "$work/DB.fasta"
fi
awk '!/^>/ { printf "query length %d\n", length($0) }' "$work/Q.fasta" | sort -k3n | tr '\n' ' ' >>"$page"
echo >>"$page"
search() { "$sf" align-sw "$work/Q.fasta" "$work/DB.sfdb" --top 10 -t "$threads" -o "$work/out.tsv" "$@"; }
search -q  # warm-up
for run in 1 2 3; do
  start=$(date +%s%N)
  search -q
  echo "wall ms: $((($(date +%s%N) - start) / 1000000))" >>"$page"
done
SEQFUSE_TRACE=1 search 2>>"$page"
md5sum "$work/out.tsv" | awk '{ print "output md5 " $1 }' >>"$page"
ncu=$(find_ncu)
if [ -n "${TIMELINE_NCU:-}" ] && [ -n "$ncu" ]; then
  echo "== ncu, the first score_db16 launch" >>"$page"
  "$ncu" --clock-control none -k regex:score_db16 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats \
    --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis \
    --metrics sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed.sum,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_lg_throttle \
    "$sf" align-sw "$work/Q.fasta" "$work/DB.sfdb" --top 10 -t "$threads" -o /dev/null -q \
    2>&1 | grep -vE '^\s+(OPT|INF|WRN)|^\s{10}' >>"$page"
fi
nsys=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -n1)
if [ -n "$nsys" ]; then
  "$nsys" profile -o "$work/tl" --force-overwrite true -t cuda --stats false \
    "$sf" align-sw "$work/Q.fasta" "$work/DB.sfdb" --top 10 -t "$threads" -o /dev/null -q \
    >/dev/null 2>&1
  echo "== nsys cuda_gpu_kern_sum" >>"$page"
  "$nsys" stats -q -r cuda_gpu_kern_sum -f csv "$work/tl.nsys-rep" 2>/dev/null | cut -c1-220 >>"$page"
  echo "== nsys cuda_gpu_trace" >>"$page"
  "$nsys" stats -q -r cuda_gpu_trace -f csv "$work/tl.nsys-rep" 2>/dev/null | cut -c1-300 |
    head -n 300 >>"$page"
else
  echo "nsys not found" >>"$page"
fi
cat "$page"
