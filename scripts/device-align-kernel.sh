#!/usr/bin/env bash
# The 16-bit search kernel against its instruction floor (issue #18 part 2),
# on the GPU machine with bundle/ (--data) carried:
#   1. bin/seqfuse-dp-pipes: issue rates of the kernel's instructions alone
#      and in pairs (warp-instructions per SM per clock), and the SASS
#      instruction counts of its kernels (to check each op is the one named);
#   2. ncu on one launch of score_db16 (ALIGN_KERNEL_QUERIES, default 64,
#      mmseqs2-examples queries against its 20,000 proteins, SW BLOSUM62
#      11/1): pipe utilisation, issue, stalls, plus the kernel's SASS opcode
#      histogram;
#   3. the whole search (all 500 queries) timed ALIGN_KERNEL_RUNS times
#      (default 3), median, with the device rate from SEQFUSE_TRACE.
# ALIGN_KERNEL_ONLY_SEARCH=1 skips 1 and 2. Writes
# $OUT/align-kernel[-$ALIGN_KERNEL_TAG].txt. Run from the repo root:
#   bash scripts/device-align-kernel.sh
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
page=$OUT/align-kernel${ALIGN_KERNEL_TAG:+-$ALIGN_KERNEL_TAG}.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
ncu=$(find_ncu)
{
  echo "# device-align-kernel.sh, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# machine: $(nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | head -n1)"
  echo "# seqfuse: $(bundle/bin/seqfuse --version 2>&1 | head -n1), SEQFUSE_ALIGN_LONG=${SEQFUSE_ALIGN_LONG:-default}"
} >"$page"

# opcodes FILE: histogram of SASS opcodes (first word after the address).
opcodes() {
  grep -E '^\s+/\*[0-9a-f]{4}\*/' "$1" | sed -E 's@^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T]+\s+)?@@' |
    awk '{ print $1 }' | sed 's/;$//' | sort | uniq -c | sort -rn
}

only_search=${ALIGN_KERNEL_ONLY_SEARCH:-}
if [ -z "$only_search" ] && [ -x bundle/bin/seqfuse-dp-pipes ]; then
  echo "== 1. issue rates (seqfuse-dp-pipes)" >>"$page"
  bundle/bin/seqfuse-dp-pipes >>"$page" 2>&1
  if [ -x "$cuobjdump" ]; then
    "$cuobjdump" -sass bundle/bin/seqfuse-dp-pipes >"$work/pipes.sass" 2>/dev/null
    awk '/Function : /{ f = $NF } /^\s+\/\*[0-9a-f]{4}\*\// && f { print f "\t" $0 }' \
      "$work/pipes.sass" |
      awk -F'\t' '{ split($2, w, /[ \t;]+/); op = ""; for (i = 1; i <= length(w); ++i)
        if (w[i] ~ /^[A-Z][A-Z0-9.]+$/ && w[i] !~ /^P[0-9T]$/) { op = w[i]; break }
        if (op != "") n[$1 "\t" op]++ } END { for (k in n) if (n[k] >= 64) print n[k] "\t" k }' |
      sort -t$'\t' -k2,2 -k1,1rn >>"$page"
  fi
fi

gzip -dc bundle/data/mmseqs_DB.fasta.gz >"$work/DB.fasta"
gzip -dc bundle/data/mmseqs_QUERY.fasta.gz >"$work/all.fasta"
first_records "${ALIGN_KERNEL_QUERIES:-64}" "$work/all.fasta" >"$work/QUERY.fasta"
if [ -z "$only_search" ] && [ -n "$ncu" ]; then
  echo "== 2. ncu, one score_db16 launch ($(grep -c '>' "$work/QUERY.fasta") queries)" >>"$page"
  "$ncu" --clock-control none -k regex:score_db16 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats \
    --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats \
    --metrics sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_active.avg,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio \
    bundle/bin/seqfuse align-sw "$work/QUERY.fasta" "$work/DB.fasta" --top 10 -t "$(nproc)" \
    -o /dev/null >>"$page" 2>"$work/ncu.err" || tail -n 20 "$work/ncu.err" >>"$page"
  if [ -x "$cuobjdump" ]; then
    "$cuobjdump" -sass -fun score_db16 bundle/bin/seqfuse >"$work/k.sass" 2>/dev/null ||
      "$cuobjdump" -sass bundle/bin/seqfuse 2>/dev/null |
      awk '/Function : /{keep = ($0 ~ /score_db16/)} keep' >"$work/k.sass"
    echo "== score_db16 SASS opcodes (all functions matching)" >>"$page"
    opcodes "$work/k.sass" | head -n 40 >>"$page"
  fi
fi

echo "== 3. whole search, 500 queries x 20,000 (SW BLOSUM62 11/1, top 10)" >>"$page"
times=()
for run in $(seq "${ALIGN_KERNEL_RUNS:-3}"); do
  start=$(date +%s%N)
  SEQFUSE_TRACE=1 bundle/bin/seqfuse align-sw "$work/all.fasta" "$work/DB.fasta" --top 10 \
    -t "$(nproc)" -o "$work/out.tsv" 2>"$work/trace.$run" || echo "run $run failed" >>"$page"
  times+=($((($(date +%s%N) - start) / 1000000)))
done
printf '%s\n' "${times[@]}" | sort -n |
  awk '{ v[NR] = $1 } END { printf "wall ms: median %d (of %d)\n", v[int((NR + 1) / 2)], NR }' >>"$page"
grep -iE 'cups|score|launch' "$work/trace.1" | head -n 20 >>"$page"
md5sum "$work/out.tsv" | awk '{ print "output md5 " $1 }' >>"$page"
cat "$page"
