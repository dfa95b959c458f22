#!/usr/bin/env bash
# Where align --pairs spends its time on the GPU machine: SEQFUSE_TRACE phase
# times for DNA pairs, SW and NW, score-only and with CIGAR. The pairs are
# the bench's (bench/run.sh dna_pairs, in /tmp/seqfuse-bench/dna_pairs) or,
# with DNA_PAIRS and DNA_PAIR_LENGTH set, made here by
# scripts/make-dna-pairs.sh without running the bench. Run as
# device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-align-trace.sh bash scripts/device-run.sh --bench
#   DNA_PAIRS=1000000 DNA_PAIR_LENGTH=1000 DEVICE_EXTRA=scripts/device-align-trace.sh \
#     bash scripts/device-run.sh --no-cpu-tests
# TRACE_BASELINE=PATH (another seqfuse build, carried along) times the
# --traceback runs with it too, right after each of ours, and requires the
# two outputs to be byte-identical.
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
sf=bundle/bin/seqfuse
dir=/tmp/seqfuse-bench/dna_pairs
if [ -n "${DNA_PAIRS:-}" ]; then
  dir=/tmp/seqfuse-trace-pairs
  t0=$(date +%s)
  bash scripts/make-dna-pairs.sh "$DNA_PAIRS" "${DNA_PAIR_LENGTH:-150}" \
    bundle/data/lambda_virus.fa.gz "$dir" || exit 1
  echo "made $DNA_PAIRS pairs of ${DNA_PAIR_LENGTH:-150} bp in $(($(date +%s) - t0)) s"
fi
[ -f "$dir/q.fa" ] || { echo "no $dir/q.fa: run the dna_pairs bench case first, or set DNA_PAIRS"; exit 1; }
threads=$(nproc)
for mode in sw nw; do
  for extra in "" --traceback; do
    echo "== trace: align-$mode --pairs $extra"
    SEQFUSE_TRACE=1 /usr/bin/time -f "wall %e s, peak RSS %M KB" \
      "$sf" "align-$mode" "$dir/q.fa" "$dir/t.fa" --pairs $extra --match 2 --mismatch -3 \
      --gap-open 5 --gap-extend 2 -t "$threads" -o "$dir/out.tsv" 2>&1
    if [ -n "$extra" ] && [ -n "${TRACE_BASELINE:-}" ]; then
      echo "== trace: baseline $TRACE_BASELINE align-$mode --pairs $extra"
      SEQFUSE_TRACE=1 with_bundle_libs \
        /usr/bin/time -f "wall %e s, peak RSS %M KB" "$TRACE_BASELINE" "align-$mode" "$dir/q.fa" "$dir/t.fa" --pairs $extra --match 2 \
        --mismatch -3 --gap-open 5 --gap-extend 2 -t "$threads" -o "$dir/baseline.tsv" 2>&1
      if cmp -s "$dir/out.tsv" "$dir/baseline.tsv"; then
        echo "outputs identical ($(wc -l <"$dir/out.tsv") lines)"
      else
        echo "OUTPUTS DIFFER: $(cmp "$dir/out.tsv" "$dir/baseline.tsv" 2>&1 | head -n 1)"
      fi
    fi
  done
done
