#!/usr/bin/env bash
# Issue 17: where a GPU fastq-trim run's wall time goes, variant against
# variant. PAIRS simulated pairs (plain), trimmed with --device gpu -w THREADS
# under each of VARIANTS, ROUNDS rounds alternating (default 3), fresh output
# files each run, SEQFUSE_TRACE on; fastp -w THREADS once beside them for the
# ratio, and `seqfuse --version` (the process's start and end without a run).
# A variant is `base` (nothing added), NAME=VALUE (an environment setting) or
# a --option (added to the command line), or `baseline` (bundle/baseline/seqfuse,
# an older build carried beside the new one), e.g.
#   VARIANTS="base SEQFUSE_TRIM_DUP_POPULATE=0 --dont_eval_duplication"
# (default: the GPU host waits, SEQFUSE_GPU_WAIT unset, block, yield, spin).
# Every output must equal the first run's, unless its option changes reads.
# Per run: wall ms, the trace's device start, loop line, workers'
# thread-seconds and exit mark (wall minus exit: the process's start before
# the trace clock plus its teardown after _Exit).
# Writes $OUT/fastq-trim-variants.md. Runs inside the carried bundle.
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
export PATH="$PWD/bundle/peers/bin:$PATH"
repo=$PWD
sf=$repo/bundle/bin/seqfuse
pairs=${PAIRS:-4000000}
rounds=${ROUNDS:-3}
threads=${THREADS:-16}
variants=${VARIANTS:-base SEQFUSE_GPU_WAIT=block SEQFUSE_GPU_WAIT=yield SEQFUSE_GPU_WAIT=spin}
work=${WORK:-/tmp/seqfuse-trim-variants}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$work" "$OUT"
table=$OUT/fastq-trim-variants.md
log=$OUT/fastq-trim-variants.log
: >"$log"
cd "$work" || exit 1
rm -f ./*.fq
"$repo/bundle/bin/seqfuse-simulate-reads" --trim-pairs "$pairs" 150 20261125 r1.fq r2.fq || exit 1
ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mark() {  # mark PHASE: the trace's seconds at a phase, from trace.txt
  grep -m1 "fastq-trim: $1\|trace: [0-9.]* s $1\$" trace.txt | grep -o 'trace: [0-9.]*' | grep -o '[0-9.]*$'
}

rm -f fastp-1.fq fastp-2.fq
t0=$(ms)
fastp -w "$threads" -i r1.fq -I r2.fq -o fastp-1.fq -O fastp-2.fq -j /dev/null -h /dev/null >>"$log" 2>&1 ||
  echo "fastp failed" | tee -a "$log"
fastp_ms=$(($(ms) - t0))
version_ms=()
for _ in 1 2 3; do
  t0=$(ms)
  "$sf" --version >/dev/null
  version_ms+=($(($(ms) - t0)))
done

failures=0
declare -A times
for round in $(seq "$rounds"); do
  for variant in $variants; do
    rm -f o1.fq o2.fq
    env_args=() cli_args=() bin=$sf
    case $variant in
      base) ;;
      baseline) bin=$repo/bundle/baseline/seqfuse ;;
      --*) cli_args=("$variant") ;;
      *=*) env_args=("$variant") ;;
      *) echo "unknown variant $variant" >&2; exit 2 ;;
    esac
    t0=$(ms)
    env "${env_args[@]}" SEQFUSE_TRACE=1 "$bin" fastq-trim --quiet --device gpu -w "$threads" \
      -i r1.fq -I r2.fq -o o1.fq -O o2.fq -j /dev/null -h /dev/null "${cli_args[@]}" 2>"trace.txt" ||
      { echo "FAIL: $variant" | tee -a "$log"; failures=$((failures + 1)); }
    t=$(($(ms) - t0))
    times[$variant]="${times[$variant]:-} $t"
    exit_s=$(mark exit)
    echo "round $round $variant: $t ms; device chosen at $(mark 'device chosen') s;" \
      "$(grep -o 'fastq-trim: [0-9]* groups.*' trace.txt);" \
      "$(grep -o "workers' thread-seconds: parsing.*" trace.txt);" \
      "exit at $exit_s s, wall minus exit $(awk -v w="$t" -v e="${exit_s:-0}" 'BEGIN {printf "%.0f", w - 1000 * e}') ms" |
      tee -a "$log"
    grep "gpu:0: workers\|fastq-trim: \(writer\|reads trimmed\|devices\|counts\|JSON\|HTML\|outputs\)" trace.txt >>"$log"
    if [ ! -f ref1.fq ]; then
      mv o1.fq ref1.fq && mv o2.fq ref2.fq
    elif [[ $variant != --* ]] && { ! cmp -s o1.fq ref1.fq || ! cmp -s o2.fq ref2.fq; }; then
      echo "DIFFERENT output: $variant round $round" | tee -a "$log"
      failures=$((failures + 1))
    fi
  done
done
cmp -s ref1.fq fastp-1.fq && cmp -s ref2.fq fastp-2.fq && same=yes || same=no

{
  echo "fastq-trim variants: $pairs simulated pairs (plain), -w $threads, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1), bundle $(sed -n 's/^commit=//p' "$repo/bundle/BUILD_INFO")"
  echo
  echo "fastp -w $threads: $fastp_ms ms (one run); seqfuse reads = fastp's: $same; seqfuse --version: ${version_ms[*]} ms"
  echo
  echo "| variant | runs (ms) | median ms | fastp / seqfuse |"
  echo "|---|---|---|---|"
  for variant in $variants; do
    m=$(tr ' ' '\n' <<<"${times[$variant]}" | grep . | median)
    echo "| $variant |${times[$variant]} | $m | $(awk -v f="$fastp_ms" -v s="$m" 'BEGIN {printf "%.2fx", f / s}') |"
  done
  echo
  echo "Failures: $failures."
} >"$table"
cat "$table"
[ "$failures" -eq 0 ]
