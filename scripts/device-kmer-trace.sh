#!/usr/bin/env bash
# Where kmer-count's time goes on the GPU machine: SEQFUSE_TRACE phase times
# for the bench's 4 M-read input (made by bench/run.sh's kmer cases), plain
# and gzip, twice each, and a run under -m 2 that spills and merges on 16
# threads (KMER_TRACE_SPILL=0 leaves the spill runs out; KMER_TRACE_GZIP=0
# the gzip runs). Run as device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-kmer-trace.sh bash scripts/device-run.sh --bench
set -uo pipefail
sf=bundle/bin/seqfuse
reads=/tmp/seqfuse-bench/kmer/reads.fq
[ -f "$reads" ] || { echo "no $reads: run the kmer_count bench case first"; exit 1; }
threads=$(nproc)
# The fixed costs of a GPU run (driver start-up, context teardown at exit):
# one read, so the wall time minus the trace's `exit` is the teardown.
printf '@r\nACGTACGTACGTACGTACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII\n' >/tmp/one-read.fq
for run in 1 2; do
  echo "== trace: one read, run $run"
  SEQFUSE_TRACE=1 /usr/bin/time -f "wall %e s, peak RSS %M KB" \
    "$sf" kmer-count -k 31 -t "$threads" --histo /dev/null /tmp/one-read.fq 2>&1
done
inputs=("$reads")
[ "${KMER_TRACE_GZIP:-1}" = 0 ] || inputs+=("$reads.gz")
for f in "${inputs[@]}"; do
  [ -f "$f" ] || continue
  for run in 1 2; do
    echo "== trace: $f, run $run"
    SEQFUSE_TRACE=1 /usr/bin/time -f "wall %e s, peak RSS %M KB" \
      "$sf" kmer-count -k 31 -t "$threads" --histo /dev/null "$f" 2>&1
  done
done
[ "${KMER_TRACE_SPILL:-1}" = 0 ] && exit 0
echo "== spill and merge: -m 2 -o DB, $threads threads"
rm -rf /tmp/seqfuse-spill && mkdir -p /tmp/seqfuse-spill
SEQFUSE_TRACE=1 /usr/bin/time -f "wall %e s, peak RSS %M KB" \
  "$sf" kmer-count -k 31 -t "$threads" -m 2 -o /tmp/seqfuse-spill/reads.kdb "$reads" 2>&1
echo "== the same on 1 thread for the merge's reference (-t 1 also slows reading)"
SEQFUSE_TRACE=1 /usr/bin/time -f "wall %e s, peak RSS %M KB" \
  "$sf" kmer-count -k 31 -t 1 -m 2 -o /tmp/seqfuse-spill/reads1.kdb "$reads" 2>&1
cmp /tmp/seqfuse-spill/reads.kdb /tmp/seqfuse-spill/reads1.kdb && echo "databases identical"
echo "== the same on the CPU engine (--device cpu, -m 2: spills too): GPU and CPU databases must be equal"
SEQFUSE_TRACE=1 /usr/bin/time -f "wall %e s, peak RSS %M KB" \
  "$sf" kmer-count --device cpu -k 31 -t "$threads" -m 2 -o /tmp/seqfuse-spill/reads-cpu.kdb "$reads" 2>&1
cmp /tmp/seqfuse-spill/reads.kdb /tmp/seqfuse-spill/reads-cpu.kdb && echo "GPU and CPU databases identical"
rm -rf /tmp/seqfuse-spill
