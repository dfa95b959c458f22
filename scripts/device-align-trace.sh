#!/usr/bin/env bash
# Where align --pairs spends its time on the GPU machine: SEQFUSE_TRACE phase
# times for the bench's 1 M DNA pairs of 150 bp (made by bench/run.sh's
# dna_pairs case), SW and NW, score-only and with CIGAR. Run as
# device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-align-trace.sh bash scripts/device-run.sh --bench
set -uo pipefail
sf=bundle/bin/seqfuse
dir=/tmp/seqfuse-bench/dna_pairs
[ -f "$dir/q.fa" ] || { echo "no $dir/q.fa: run the dna_pairs bench case first"; exit 1; }
threads=$(nproc)
for mode in sw nw; do
  for extra in "" --traceback; do
    echo "== trace: align-$mode --pairs $extra"
    SEQFUSE_TRACE=1 /usr/bin/time -f "wall %e s, peak RSS %M KB" \
      "$sf" "align-$mode" "$dir/q.fa" "$dir/t.fa" --pairs $extra --match 2 --mismatch -3 \
      --gap-open 5 --gap-extend 2 -t "$threads" -o /dev/null 2>&1
  done
done
