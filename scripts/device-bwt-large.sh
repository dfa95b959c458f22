#!/usr/bin/env bash
# seqfuse bwt on a simulated human-sized genome on the GPU machine: LARGE_GBP
# Gbp (default 3.1) in 31 records, random bases with planted repeats (100
# segments of 10 kb copied to 3 places each) and N runs (100 of 10 kb),
# fixed seed; both strands are indexed (6.2 G suffixes at 3.1 Gbp), so the
# GPU's bucketed sort runs. Reports wall time, peak host memory (RSS) and
# peak device memory (nvidia-smi, sampled every 200 ms), then checks the
# index with bwa itself: 2,000 reads of 150 bp cut from unique stretches of
# the genome must map back to where they came from (`bwa mem`).
# Writes $OUT/bwt-large.md. Needs bundle/ (bwa in bundle/peers).
#   bash scripts/device-bwt-large.sh
# Environment: LARGE_GBP (default 3.1), OUT.
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle
export PATH="$PWD/bundle/peers/bin:$PATH"
sf=$PWD/bundle/bin/seqfuse
gbp=${LARGE_GBP:-3.1}
threads=$(nproc)
work=/tmp/seqfuse-bwt-large
mkdir -p "$work"
report="${OUT:-$work}/bwt-large.md"
mkdir -p "$(dirname "$report")"

t0=$(date +%s%N)
python3 - "$work/genome.fa" "$work/reads.fq" "$gbp" <<'PY'
import sys
import numpy as np
fa, fq, gbp = sys.argv[1], sys.argv[2], float(sys.argv[3])
rng = np.random.default_rng(20261125)
n = int(gbp * 1e9)
seq = np.frombuffer(b"ACGT", dtype=np.uint8)[rng.integers(0, 4, size=n, dtype=np.uint8)]
masked = np.zeros(n, dtype=bool)  # planted repeats and N runs: no reads there
for _ in range(100):  # a 10 kb segment copied to three other places
    src = int(rng.integers(0, n - 10000))
    masked[src:src + 10000] = True
    for _ in range(3):
        dst = int(rng.integers(0, n - 10000))
        seq[dst:dst + 10000] = seq[src:src + 10000]
        masked[dst:dst + 10000] = True
for _ in range(100):
    at = int(rng.integers(0, n - 10000))
    seq[at:at + 10000] = ord("N")
    masked[at:at + 10000] = True
records = 31
bounds = [n * r // records for r in range(records + 1)]
with open(fa, "wb") as out:
    for r in range(records):
        out.write(b">sim%d simulated genome, record %d\n" % (r + 1, r + 1))
        out.write(seq[bounds[r]:bounds[r + 1]].tobytes())
        out.write(b"\n")
with open(fq, "w") as out:
    made = 0
    while made < 2000:
        r = int(rng.integers(0, records))
        pos = int(rng.integers(bounds[r], bounds[r + 1] - 150))
        if masked[pos:pos + 150].any():
            continue
        read = seq[pos:pos + 150].tobytes().decode()
        out.write("@r%d:sim%d:%d\n%s\n+\n%s\n" % (made, r + 1, pos - bounds[r] + 1, read, "I" * 150))
        made += 1
PY
t1=$(date +%s%N)
gen_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) / 1e9}')

nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$work/gpu-mem.txt" 2>/dev/null &
smi=$!
SEQFUSE_TRACE=1 python3 - "$work/run.txt" "$sf" bwt "$work/genome.fa" -p "$work/sim" --device gpu -t "$threads" <<'PY'
import resource, subprocess, sys, time
log = sys.argv[1]
t = time.time()
rc = subprocess.call(sys.argv[2:], stderr=open(log + ".stderr", "w"))
wall = time.time() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1048576  # KiB -> GiB
open(log, "w").write("%d %.2f %.1f\n" % (rc, wall, rss))
PY
kill "$smi" 2>/dev/null
read -r rc wall rss <"$work/run.txt"
base=$(head -n1 "$work/gpu-mem.txt")
peak=$(sort -n "$work/gpu-mem.txt" | tail -n1)

mapped=0 right=0
if [ "$rc" = 0 ]; then
  bwa mem -t "$threads" "$work/sim" "$work/reads.fq" 2>"$work/bwa-mem.log" >"$work/reads.sam"
  # Primary lines only (flags 256, 2048 unset); mawk has no and(): bit b of
  # the flag is int(flag / b) % 2.
  read -r mapped right < <(awk '!/^@/ && int($2 / 256) % 2 == 0 && int($2 / 2048) % 2 == 0 {
      split($1, f, ":"); m += int($2 / 4) % 2 == 0; r += ($3 == f[2] && $4 == f[3]) }
      END {print m + 0, r + 0}' "$work/reads.sam")
fi
{
  echo "# seqfuse bwt on a simulated ${gbp} Gbp genome ($(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1), $threads threads)"
  echo ""
  echo "bundle $(sed -n 's/^commit=//p' bundle/BUILD_INFO); genome generated in ${gen_s} s (not timed below)"
  echo ""
  echo "| step | value |"
  echo "|---|---|"
  echo "| exit status | $rc |"
  echo "| wall seconds, whole process (read FASTA, pack, sort, write 5 files) | $wall |"
  echo "| peak host memory (max RSS) | ${rss} GiB |"
  echo "| peak device memory (nvidia-smi; ${base} MiB before) | ${peak} MiB |"
  echo "| reads mapped by bwa mem on this index | $mapped / 2000 |"
  echo "| ... at the position they were cut from | $right / 2000 |"
  echo ""
  echo "seqfuse's stderr:"
  echo '```'
  grep -v -E "bucket [0-9]+ ranked|doubling round" "$work/run.txt.stderr" | tail -n 24
  echo '```'
  ls -l "$work"/sim.* | awk '{print $5, $9}'
} | tee "$report"
[ "$rc" = 0 ] && [ "$right" = 2000 ]
