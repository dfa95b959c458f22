#!/usr/bin/env bash
# kmer-count's GPU and CPU engines against each other while spilling: the
# bench reads (scripts/make-bench-data.sh from the bundle's seeds, 200 MB of
# FASTQ by default) counted under a memory limit small enough that both
# engines spill runs to disk and merge them; the two databases must be
# byte-identical. Standalone, or as device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-kmer-spill-check.sh bash scripts/device-run.sh --no-cpu-tests
# Environment: KMER_SPILL_MB (FASTQ size, default 200), KMER_SPILL_GB (-m,
# default 0.1).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
die() { echo "device-kmer-spill-check: error: $*" >&2; exit 1; }
sf=bundle/bin/seqfuse
[ -x "$sf" ] || die "no $sf: run scripts/device-bundle.sh --data here and carry 'bundle'"
[ -d bundle/data ] || die "no bundle/data: make the bundle with --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle
work=${TMPDIR:-/tmp}/seqfuse-spill-check
mkdir -p "$work"
scripts/make-bench-data.sh --from bundle/data --into "$work" --target-mb "${KMER_SPILL_MB:-200}" >/dev/null
reads=$work/fastq/reads.fq
[ -f "$reads" ] || die "make-bench-data.sh made no $reads"
threads=$(nproc)
limit=${KMER_SPILL_GB:-0.1}
echo "device-kmer-spill-check: $(du -h "$reads" | cut -f1) of FASTQ, k = 31, -m $limit, $threads threads"
for device in gpu cpu; do
  rm -f "$work/$device.kdb"
  SEQFUSE_TRACE=1 "$sf" kmer-count --device "$device" -k 31 -t "$threads" -m "$limit" \
    -o "$work/$device.kdb" "$reads" 2>&1 | grep -E "spill|merge|runs|kmer-count:" | tail -n 4
done
if cmp "$work/gpu.kdb" "$work/cpu.kdb"; then
  echo "device-kmer-spill-check: GPU and CPU databases identical ($(stat -c %s "$work/gpu.kdb") bytes)"
else
  die "GPU and CPU databases differ"
fi
rm -f "$work/gpu.kdb" "$work/cpu.kdb"
