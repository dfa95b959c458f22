#!/usr/bin/env bash
# Issue 17: does the way host threads wait for the GPU matter to fastq-trim?
# CUDA's default (auto) spins in cudaStreamSynchronize while the process has
# fewer contexts than cores, so each of the GPU engine's lanes may hold a core
# that the 16 parsing workers and the two readers need. PAIRS simulated pairs
# (plain), trimmed with --device gpu -w THREADS under SEQFUSE_GPU_WAIT =
# each of WAITS (default: unset, block, yield, spin), ROUNDS rounds
# alternating (default 3), fresh output files each run; fastp -w THREADS
# once beside them for the ratio. Every output must equal the first run's.
# The trace line of each run (trimming time, reader waits) goes to the log.
# Writes $OUT/fastq-trim-wait.md. Runs inside the carried bundle.
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
waits=${WAITS:-unset block yield spin}
work=${WORK:-/tmp/seqfuse-trim-wait}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$work" "$OUT"
table=$OUT/fastq-trim-wait.md
log=$OUT/fastq-trim-wait.log
: >"$log"
cd "$work" || exit 1
rm -f ./*.fq
"$repo/bundle/bin/seqfuse-simulate-reads" --trim-pairs "$pairs" 150 20261125 r1.fq r2.fq || exit 1
ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

rm -f fastp-1.fq fastp-2.fq
t0=$(ms)
fastp -w "$threads" -i r1.fq -I r2.fq -o fastp-1.fq -O fastp-2.fq -j /dev/null -h /dev/null >>"$log" 2>&1 ||
  echo "fastp failed" | tee -a "$log"
fastp_ms=$(($(ms) - t0))

failures=0
declare -A times
for round in $(seq "$rounds"); do
  for wait in $waits; do
    rm -f o1.fq o2.fq
    env_args=()
    [ "$wait" != unset ] && env_args=("SEQFUSE_GPU_WAIT=$wait")
    t0=$(ms)
    env "${env_args[@]}" SEQFUSE_TRACE=1 "$sf" fastq-trim --quiet --device gpu -w "$threads" \
      -i r1.fq -I r2.fq -o o1.fq -O o2.fq -j /dev/null -h /dev/null 2>"trace.txt" ||
      { echo "FAIL: $wait" | tee -a "$log"; failures=$((failures + 1)); }
    t=$(($(ms) - t0))
    times[$wait]="${times[$wait]:-} $t"
    echo "round $round $wait: $t ms; $(grep -o 'fastq-trim: [0-9]* groups.*' trace.txt)" | tee -a "$log"
    if [ ! -f ref1.fq ]; then
      mv o1.fq ref1.fq && mv o2.fq ref2.fq
    elif ! cmp -s o1.fq ref1.fq || ! cmp -s o2.fq ref2.fq; then
      echo "DIFFERENT output: $wait round $round" | tee -a "$log"
      failures=$((failures + 1))
    fi
  done
done
cmp -s ref1.fq fastp-1.fq && cmp -s ref2.fq fastp-2.fq && same=yes || same=no

{
  echo "fastq-trim host waits: $pairs simulated pairs (plain), -w $threads, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1), bundle $(sed -n 's/^commit=//p' "$repo/bundle/BUILD_INFO")"
  echo
  echo "fastp -w $threads: $fastp_ms ms (one run); seqfuse reads = fastp's: $same"
  echo
  echo "| SEQFUSE_GPU_WAIT | runs (ms) | median ms | fastp / seqfuse |"
  echo "|---|---|---|---|"
  for wait in $waits; do
    m=$(tr ' ' '\n' <<<"${times[$wait]}" | grep . | median)
    echo "| $wait |${times[$wait]} | $m | $(awk -v f="$fastp_ms" -v s="$m" 'BEGIN {printf "%.2fx", f / s}') |"
  done
  echo
  echo "Failures: $failures."
} >"$table"
cat "$table"
[ "$failures" -eq 0 ]
