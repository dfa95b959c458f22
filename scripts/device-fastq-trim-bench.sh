#!/usr/bin/env bash
# seqfuse fastq-trim on the GPU machine beside fastp 0.23.2 (bundle/peers):
# first the fastq-trim [gpu] tests (GPU engine == CPU engine), then PAIRS
# simulated 150 bp pairs (seqfuse-simulate-reads --trim-pairs: adapters past
# short inserts, poly-G tails, N runs, NovaSeq names, so poly-G trimming turns
# on as in fastp), plain and gzip, trimmed with fastp -w T, seqfuse --device
# cpu -w T and seqfuse --device gpu -w T (T = THREADS, default 16), wall
# seconds of the whole process, median of RUNS. fastp 0.23.2 writes reads in
# input order whatever -w is (docs/fastq-trim.md), so all three outputs are
# compared byte for byte (gzip ones after inflating); the two seqfuse JSON
# reports must be equal (the command line aside), and their filtering
# counts equal fastp's. Floors measured beside: reading the inputs from the
# page cache (cat), copying them into fresh files (cat > file, a process a
# mate: reading and writing, the plain run's copy floor), inflating them
# (gzip -dc, one stream a file). With STREAM_ROW=1 the GPU plain run is also
# timed with SEQFUSE_TRIM_STREAM=1 (plain inputs read in pieces instead of
# mapped), the way before run 31, in the same call.
# Writes $OUT/fastq-trim-bench.md and $OUT/fastq-trim-bench.log.
# Runs inside the carried bundle (scripts/device-bundle.sh), in one call:
#   bash scripts/device-fastq-trim-bench.sh
# Environment: PAIRS (default 4000000), RUNS (default 3), THREADS (default
# 16), SKIP_TESTS=1 (no [gpu] tests), SANITIZE=1 (compute-sanitizer
# memcheck and racecheck over the example-reads test first), GPU_DEVICE (default gpu; cpu for a
# dry run of the plumbing on a machine without a GPU), WORK (default /tmp/seqfuse-trim-bench),
# BUDGET_S (default 300: past it, the remaining rows take one run each),
# OUT. Expected: 5 to 8 minutes on the H100 machine at the defaults.
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle
export PATH="$PWD/bundle/peers/bin:$PATH"
repo=$PWD
sf=$repo/bundle/bin/seqfuse
pairs=${PAIRS:-4000000}
runs=${RUNS:-3}
threads=${THREADS:-16}
work=${WORK:-/tmp/seqfuse-trim-bench}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$work" "$OUT"
table="$OUT/fastq-trim-bench.md"
log="$OUT/fastq-trim-bench.log"
: >"$log"
failures=0
started=$(date +%s)
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)

elapsed() { echo $(($(date +%s) - started)); }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
seconds() {  # seconds CMD...: wall seconds of one run (its output to the log)
  local t0 t1
  t0=$(date +%s%N)
  "$@" >>"$log" 2>&1 || { echo "FAIL: $*" | tee -a "$log" >&2; tail -n 3 "$log" >&2; return 1; }
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", (b - a) / 1e9}'
}

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  # seqfuse_tests reads data/ beside tests/data through SEQFUSE_TEST_DATA_DIR.
  echo "== [gpu] fastq-trim tests" | tee -a "$log"
  if SEQFUSE_TEST_DATA_DIR="$PWD/tests/data" bundle/bin/seqfuse_tests \
    "the GPU fastq-trim engine*" 2>&1 | tee -a "$log" | tail -n 4; then
    echo "tests: ok ($(elapsed) s)"
  else
    echo "tests: FAILED"
    failures=$((failures + 1))
  fi
fi

if [ "${SANITIZE:-0}" = 1 ]; then
  # memcheck and racecheck over the example-reads test (a minute or two each).
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer $tool" | tee -a "$log"
    SEQFUSE_TEST_DATA_DIR="$PWD/tests/data" /usr/local/cuda/bin/compute-sanitizer --tool $tool \
      --error-exitcode 1 bundle/bin/seqfuse_tests \
      "the GPU fastq-trim engine equals the CPU engine on the example reads" 2>&1 |
      tee -a "$log" | tail -n 3 || failures=$((failures + 1))
  done
fi

echo "== data: $pairs pairs" | tee -a "$log"
cd "$work" || exit 1
rm -f ./*.fq ./*.fq.gz ./*.json ./*.html
"$repo/bundle/bin/seqfuse-simulate-reads" --trim-pairs "$pairs" 150 20261125 r1.fq r2.fq ||
  { echo "simulate failed"; exit 1; }
# gzip copies (one member each, as sequencers write them): pigz when the
# machine has it, else gzip -1, a process a file.
if command -v pigz >/dev/null; then
  pigz -p "$threads" -4 -k -f r1.fq r2.fq
else
  gzip -1 -c r1.fq >r1.fq.gz &
  gzip -1 -c r2.fq >r2.fq.gz &
  wait
fi
ls -l r1.fq r2.fq r1.fq.gz r2.fq.gz | tee -a "$log"
echo "data ready ($(elapsed) s)"

# Floors: the inputs read from the page cache, and inflated (one stream a file).
# Medians of three: a first copy into fresh files ran half as long again as
# the next two (run 31i).
cat_s=$(for _ in 1 2 3; do seconds sh -c 'cat r1.fq r2.fq >/dev/null'; done | median)
copy_s=$(for _ in 1 2 3; do
  rm -f copy-1.fq copy-2.fq
  seconds sh -c 'cat r1.fq >copy-1.fq & cat r2.fq >copy-2.fq; wait'
done | median)
rm -f copy-1.fq copy-2.fq
inflate_s=$(seconds sh -c 'gzip -dc r1.fq.gz >/dev/null & gzip -dc r2.fq.gz >/dev/null; wait')

run_tool() {  # run_tool TOOL EXT: median seconds of RUNS runs, outputs TOOL1.EXT TOOL2.EXT
  local tool=$1 ext=$2 t times=()
  local -a cmd
  case $tool in
    fastp) cmd=(fastp -w "$threads") ;;
    cpu) cmd=("$sf" fastq-trim --quiet --device cpu -w "$threads") ;;
    gpu) cmd=("$sf" fastq-trim --device "${GPU_DEVICE:-gpu}" -w "$threads") ;;
    gpustream) cmd=(env SEQFUSE_TRIM_STREAM=1 "$sf" fastq-trim --device "${GPU_DEVICE:-gpu}" -w "$threads") ;;
  esac
  for _ in $(seq "$runs"); do
    # Each run writes fresh files: ext4 flushes a file renamed over an
    # existing one (auto_da_alloc), which seqfuse's atomic outputs would pay
    # and fastp's in-place writes would not (run 24).
    rm -f "$tool-1.$ext" "$tool-2.$ext" "$tool-$ext.json" "$tool-$ext.html"
    t=$(seconds "${cmd[@]}" -i "r1.$ext" -I "r2.$ext" -o "$tool-1.$ext" -O "$tool-2.$ext" \
      -j "$tool-$ext.json" -h "$tool-$ext.html") || return 1
    times+=("$t")
  done
  printf '%s\n' "${times[@]}" | median
}

same_reads() {  # same_reads EXT: fastp, cpu and gpu outputs identical
  local ext=$1 side ok=yes
  for side in 1 2; do
    if [ "$ext" = fq ]; then
      cmp -s "fastp-$side.fq" "cpu-$side.fq" || ok=no
      cmp -s "cpu-$side.fq" "gpu-$side.fq" || ok=no
    else
      cmp -s <(gzip -dc "fastp-$side.fq.gz") <(gzip -dc "cpu-$side.fq.gz") || ok=no
      cmp -s <(gzip -dc "cpu-$side.fq.gz") <(gzip -dc "gpu-$side.fq.gz") || ok=no
    fi
  done
  echo $ok
}

same_json() {  # same_json EXT: "cpu=gpu fastp-counts" verdicts
  python3 - "cpu-$1.json" "gpu-$1.json" "fastp-$1.json" <<'PY'
import json, sys
cpu, gpu, fastp = (json.load(open(p)) for p in sys.argv[1:4])
for j in (cpu, gpu):
    j.pop("command", None)
equal = "yes" if cpu == gpu else "no"
keys = ("summary", "filtering_result")
counts = "yes"
for k in keys:
    a, b = cpu.get(k), fastp.get(k)
    if k == "summary":  # fastp_version and sequencing differ in wording only
        a = {x: a.get(x) for x in ("before_filtering", "after_filtering")}
        b = {x: b.get(x) for x in ("before_filtering", "after_filtering")}
    if a != b:
        counts = "no"
print(equal, counts)
PY
}

{
  echo "# seqfuse fastq-trim beside fastp 0.23.2 ($(date -u +%F), ${gpu_name:-no GPU}, $(nproc) cores, -w $threads)"
  echo ""
  echo "bundle $(sed -n 's/^commit=//p' "$repo/bundle/BUILD_INFO" 2>/dev/null); $pairs simulated pairs of 150 bp" \
    "($(du -m r1.fq | cut -f1) MiB a mate plain, $(du -m r1.fq.gz | cut -f1) MiB gzip); wall seconds," \
    "whole process, median of $runs; inputs in the page cache"
  echo ""
  echo "floors: reading both plain inputs (cat, median of 3) $cat_s s; copying them to fresh files (cat >, a process a mate, median of 3) $copy_s s; inflating both gzip inputs (gzip -dc, a stream each) $inflate_s s"
  echo ""
  echo "| input/output | fastp | seqfuse cpu | seqfuse gpu | fastp / gpu | cpu / gpu | reads identical (fastp = cpu = gpu) | JSON cpu = gpu | counts = fastp |"
  echo "|---|---|---|---|---|---|---|---|---|"
} | tee "$table"

for ext in fq fq.gz; do
  # The device call stops at 600 s: one run each when time runs short.
  if [ "$(elapsed)" -gt "${BUDGET_S:-300}" ] && [ "$runs" -gt 1 ]; then
    runs=1
    echo "(past ${BUDGET_S:-300} s: one run each from here on)" | tee -a "$table"
  fi
  fastp_s=$(run_tool fastp $ext) || { failures=$((failures + 1)); continue; }
  cpu_s=$(run_tool cpu $ext) || { failures=$((failures + 1)); continue; }
  gpu_s=$(run_tool gpu $ext) || { failures=$((failures + 1)); continue; }
  same=$(same_reads $ext)
  read -r json_equal counts_equal < <(same_json $ext)
  [ "$same" = yes ] && [ "$json_equal" = yes ] || failures=$((failures + 1))
  name=plain
  [ $ext = fq.gz ] && name=gzip
  awk -v n="$name" -v f="$fastp_s" -v c="$cpu_s" -v g="$gpu_s" -v s="$same" -v j="$json_equal" -v k="$counts_equal" \
    'BEGIN {printf "| %s | %.2f | %.2f | %.2f | %.1fx | %.1fx | %s | %s | %s |\n", n, f, c, g, f / g, c / g, s, j, k}' |
    tee -a "$table"
  echo "($name done at $(elapsed) s)"
  if [ "${STREAM_ROW:-0}" = 1 ] && [ $ext = fq ]; then
    stream_s=$(run_tool gpustream fq) || { failures=$((failures + 1)); continue; }
    for side in 1 2; do cmp -s "gpu-$side.fq" "gpustream-$side.fq" || failures=$((failures + 1)); done
    awk -v s="$stream_s" -v g="$gpu_s" -v f="$fastp_s" \
      'BEGIN {printf "\nplain inputs read in pieces (SEQFUSE_TRIM_STREAM=1), gpu: %.2f s (%.1fx fastp; mapped %.2f s)\n\n", s, f / s, g}' |
      tee -a "$table"
  fi
done
echo "" | tee -a "$table"
echo "traced GPU run (plain):" | tee -a "$table"
rm -f gpu-1.fq gpu-2.fq
SEQFUSE_TRACE=1 "$sf" fastq-trim --device "${GPU_DEVICE:-gpu}" -w "$threads" -i r1.fq -I r2.fq -o gpu-1.fq -O gpu-2.fq \
  -j '' -h '' 2>&1 | tail -n 12 | sed 's/^/    /' | tee -a "$table"
rm -f ./*-1.fq ./*-2.fq ./*-1.fq.gz ./*-2.fq.gz
echo "device-fastq-trim-bench: $failures failure(s) in $(elapsed) s; table: $table"
exit $((failures > 0))
