#!/usr/bin/env bash
# Where the protein search kernels' time goes (issue #3): ncu on one launch
# of each search kernel variant, the first ALIGN_PROFILE_QUERIES (default 64)
# mmseqs2-examples queries against its 20,000 proteins, SW BLOSUM62 11/1:
#   16-bit lanes, scores only   SEQFUSE_ALIGN_LANES=16, --top 10 (ends located afterwards)
#   16-bit lanes, end cells     SEQFUSE_ALIGN_LANES=16, --top 0 (every pair kept)
#   32-bit                      SEQFUSE_ALIGN_LANES=32, --top 10
# ncu runs with --clock-control none (METHOD.md). Writes
# $OUT/align-profile.txt (ncu's details per kernel) and
# $OUT/align-search-sass.txt (the search kernels' SASS). Needs bundle/ with
# --data. Standalone, or as device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-align-profile.sh bash scripts/device-run.sh --no-cpu-tests
# With ALIGN_PROFILE_TRACE_PAIRS=N it profiles the --traceback kernel instead:
# one traceback_kernel launch (SW, DNA 2/-3, gaps 5/2) over N pairs of 1,000 bp
# made by scripts/make-dna-pairs.sh (20,000 in run 17b, 120,000 in 17d: one
# full batch), into $OUT/trace-profile.txt and $OUT/trace-sass.txt.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
die() { echo "device-align-profile: error: $*" >&2; exit 1; }

[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data here and carry 'bundle'"
[ -f bundle/data/mmseqs_DB.fasta.gz ] || die "no bundle/data/mmseqs_DB.fasta.gz: bundle with --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle
ncu=$(find_ncu)
[ -n "$ncu" ] || die "ncu not found"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
# dump_sass KERNEL-REGEX FILE: the matching kernels' SASS from the bundle.
dump_sass() {
  [ -x "$cuobjdump" ] || return 0
  "$cuobjdump" -sass bundle/bin/seqfuse 2>/dev/null |
    awk -v re="$1" '/Function : /{keep = ($0 ~ re)} keep' >"$2"
  echo "SASS: $(grep -c 'Function : ' "$2") functions -> \$OUT/$(basename "$2")"
}
summary='^==|Duration|Executed Ipc Active|Issue Slots Busy|No Eligible|Achieved Occupancy|Registers Per|thread_inst_executed|sm__inst_executed|Stall'
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats
  --section WarpStateStats --section Occupancy --section LaunchStats)
machine="$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -n1)"

if [ -n "${ALIGN_PROFILE_TRACE_PAIRS:-}" ]; then
  pairs=$ALIGN_PROFILE_TRACE_PAIRS
  bash scripts/make-dna-pairs.sh "$pairs" 1000 bundle/data/lambda_virus.fa.gz "$work" >/dev/null
  page=$OUT/trace-profile.txt
  {
    echo "# seqfuse align-sw --traceback kernel under ncu ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo "# machine: $machine"
    echo "# seqfuse: $(bundle/bin/seqfuse --version 2>&1 | head -n1)"
    echo "# input: $pairs pairs of 1,000 bp (make-dna-pairs.sh), DNA 2/-3, gaps 5/2"
  } >"$page"
  "$ncu" --clock-control none --replay-mode application -k regex:traceback_kernel --launch-count 1 \
    "${sections[@]}" --section MemoryWorkloadAnalysis \
    --metrics smsp__thread_inst_executed.sum,sm__inst_executed.sum \
    bundle/bin/seqfuse align-sw "$work/q.fa" "$work/t.fa" --pairs --traceback --match 2 \
    --mismatch -3 --gap-open 5 --gap-extend 2 -t "$(nproc)" -o /dev/null >>"$page" \
    2>"$work/ncu.err" || { tail -n 20 "$work/ncu.err" >&2; die "ncu failed (traceback)"; }
  grep -E "$summary|Memory Throughput|DRAM Throughput" "$page" | head -n 60
  dump_sass traceback_kernel "$OUT/trace-sass.txt"
  exit 0
fi

gzip -dc bundle/data/mmseqs_DB.fasta.gz >"$work/DB.fasta"
gzip -dc bundle/data/mmseqs_QUERY.fasta.gz >"$work/all-queries.fasta"
first_records "${ALIGN_PROFILE_QUERIES:-64}" "$work/all-queries.fasta" >"$work/QUERY.fasta"

page=$OUT/align-profile.txt
{
  echo "# seqfuse align-sw search kernels under ncu ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo "# machine: $machine"
  echo "# seqfuse: $(bundle/bin/seqfuse --version 2>&1 | head -n1)"
  echo "# input: $(grep -c '>' "$work/QUERY.fasta") queries x $(grep -c '>' "$work/DB.fasta") proteins"
} >"$page"

profile() {  # profile LABEL LANES TOP KERNEL-REGEX
  echo "== $1 (SEQFUSE_ALIGN_LANES=$2, --top $3)" | tee -a "$page"
  SEQFUSE_ALIGN_LANES=$2 "$ncu" --clock-control none -k "regex:$4" --launch-count 1 \
    "${sections[@]}" \
    --metrics smsp__thread_inst_executed.sum,sm__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum \
    bundle/bin/seqfuse align-sw "$work/QUERY.fasta" "$work/DB.fasta" --top "$3" \
    -t "$(nproc)" -o /dev/null >>"$page" 2>"$work/ncu.err" ||
    { tail -n 20 "$work/ncu.err" >&2; die "ncu failed ($1)"; }
}
profile "16-bit lanes, scores only" 16 10 score_db16
profile "16-bit lanes, end cells" 16 0 score_db16
profile "32-bit lanes" 32 10 score_db_kernel
grep -E "$summary" "$page" | head -n 120
dump_sass score_db "$OUT/align-search-sass.txt"
