#!/usr/bin/env bash
# Where the GPU traceback kernel's time goes (issue #3, --traceback): ncu on
# one traceback_kernel launch (SW, DNA 2/-3, gaps 5/2) over TRACE_PROFILE_PAIRS
# (default 20,000) pairs of 1,000 bp made by scripts/make-dna-pairs.sh, and
# the kernel's SASS. ncu runs with --clock-control none (METHOD.md). Writes
# $OUT/trace-profile.txt and $OUT/trace-sass.txt. Standalone, or as
# device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-trace-profile.sh bash scripts/device-run.sh --no-cpu-tests
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
die() { echo "device-trace-profile: error: $*" >&2; exit 1; }

[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data here and carry 'bundle'"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle
ncu=$(find_ncu)
[ -n "$ncu" ] || die "ncu not found"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pairs=${TRACE_PROFILE_PAIRS:-20000}
bash scripts/make-dna-pairs.sh "$pairs" 1000 bundle/data/lambda_virus.fa.gz "$work" >/dev/null

page=$OUT/trace-profile.txt
{
  echo "# seqfuse align-sw --traceback kernel under ncu ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo "# machine: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -n1)"
  echo "# seqfuse: $(bundle/bin/seqfuse --version 2>&1 | head -n1)"
  echo "# input: $pairs pairs of 1,000 bp (make-dna-pairs.sh), --match 2 --mismatch -3 --gap-open 5 --gap-extend 2"
} >"$page"
"$ncu" --clock-control none --replay-mode application -k regex:traceback_kernel --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats \
  --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
  --metrics smsp__thread_inst_executed.sum,sm__inst_executed.sum \
  bundle/bin/seqfuse align-sw "$work/q.fa" "$work/t.fa" --pairs --traceback --match 2 --mismatch -3 \
  --gap-open 5 --gap-extend 2 -t "$(nproc)" -o /dev/null >>"$page" 2>"$work/ncu.err" ||
  { tail -n 20 "$work/ncu.err" >&2; die "ncu failed"; }
grep -E 'Duration|Executed Ipc Active|Issue Slots Busy|No Eligible|Achieved Occupancy|Registers Per|thread_inst_executed|sm__inst_executed|Stall|Memory Throughput|DRAM Throughput' "$page" | head -n 60

cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$cuobjdump" ]; then
  "$cuobjdump" -sass bundle/bin/seqfuse 2>/dev/null |
    awk '/Function : /{keep = ($0 ~ /traceback_kernel/)} keep' >"$OUT/trace-sass.txt"
  echo "SASS: $(grep -c 'Function : ' "$OUT/trace-sass.txt") functions, $(wc -l <"$OUT/trace-sass.txt") lines -> \$OUT/trace-sass.txt"
fi
