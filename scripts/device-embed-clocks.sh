#!/usr/bin/env bash
# Issue #21 on the GPU machine: the clocks and power the device holds during
# a whole ESM-2 650M-shaped forward pass, against the bf16 rate the floors
# (bench/results/embed-650M-floors.md) take from a short matmul burst. Three
# parts, each sampled every 100 ms by nvidia-smi (SM clock, power, the
# active clock-limit reasons):
#   1. torch 8192^3 bf16 matmuls: the rate of the first 10 and of the last
#      10 of as many as run in SUSTAIN_S seconds;
#   2. `seqfuse embed` on the first EMBED_CLOCKS_COUNT (2000) mmseqs2-examples
#      proteins, random weights of the t33 shape, bf16;
#   3. the GPU idle, for the baseline clock.
# Writes $OUT/embed-clocks.md.
#   DEVICE_EXTRA=scripts/device-embed-clocks.sh bash scripts/device-run.sh --no-cpu-tests
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
die() { echo "device-embed-clocks: error: $*" >&2; exit 1; }
[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data and carry 'bundle'"
proteins=bundle/data/mmseqs_DB.fasta.gz
[ -f "$proteins" ] || die "no $proteins: make the bundle with --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle

work=$(mktemp -d)
sampler=
cleanup() {
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
python3 scripts/make-random-esm.py "$work" t33 1 >/dev/null
first_records "${EMBED_CLOCKS_COUNT:-2000}" "$proteins" >"$work/proteins.fa"

# sampled NAME CMD...: runs CMD with the device sampled every 100 ms into
# $work/NAME.csv (ms since the epoch, SM MHz, W, limit reasons).
sampled() {
  local name=$1
  shift
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active \
    --format=csv,noheader,nounits -lms 100 >"$work/$name.csv" 2>/dev/null &
  sampler=$!
  "$@"
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  sampler=
}

sampled matmul python3 - "${SUSTAIN_S:-4}" >"$work/matmul.txt" <<'EOF'
import sys, time, torch
seconds = float(sys.argv[1])
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    a @ b
torch.cuda.synchronize()
times, start = [], time.time()
while time.time() - start < seconds:
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); a @ b; e.record(); e.synchronize()
    times.append(s.elapsed_time(e) / 1e3)
flop = 2 * 8192 ** 3
rate = lambda ts: flop * len(ts) / sum(ts) / 1e12
print(f"{len(times)} matmuls in {seconds:.0f} s: the first 10 at {rate(times[:10]):.0f} TFLOP/s, "
      f"the last 10 at {rate(times[-10:]):.0f} TFLOP/s")
EOF
sampled embed bundle/bin/seqfuse embed --model "$work/model" --device gpu --dtype bf16 --format npy \
  -o "$work/out.npy" "$work/proteins.fa" 2>"$work/embed.err" >/dev/null
sampled idle sleep 1

summary() {  # summary NAME: SM clock and power while busy (samples above 100 W)
  awk -F', *' '$3 > 100 { n++; c += $2; p += $3; if (min == "" || $2 < min) min = $2
    if ($4 != "0x0000000000000000") r[$4]++ }
    END { if (!n) { print "no busy samples"; exit }
      printf "%d busy samples: SM clock mean %.0f MHz (lowest %d), power mean %.0f W", n, c / n, min, p / n
      for (k in r) printf "; limit reasons %s in %d", k, r[k]; print "" }' "$work/$1.csv"
}
{
  echo "# Clocks and power during the 650M forward pass ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "- machine: $(nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit --format=csv,noheader | head -n1)"
  echo "- seqfuse: $(bundle/bin/seqfuse --version 2>&1 | head -n1)"
  echo
  echo "| part | result | device while busy |"
  echo "|---|---|---|"
  echo "| torch 8192^3 bf16 | $(cat "$work/matmul.txt") | $(summary matmul) |"
  echo "| seqfuse embed, t33 shape | $(grep '^seqfuse embed:' "$work/embed.err" | tail -n1) | $(summary embed) |"
  echo "| idle | - | $(awk -F', *' '{ c += $2; n++ } END { printf "SM clock mean %.0f MHz", c / n }' "$work/idle.csv") |"
} >"$OUT/embed-clocks.md"
cat "$OUT/embed-clocks.md"
