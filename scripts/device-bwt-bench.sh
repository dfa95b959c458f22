#!/usr/bin/env bash
# seqfuse bwt on the GPU machine beside `bwa index` (bwa 0.7.17, the peer it
# replaces) and its own CPU engine: the same five files from all of them
# (cmp), the GPU's bucketed sort forced (SEQFUSE_BWT_BUCKET_SUFFIXES, about
# eight buckets) included, and wall times (one run of bwa; seqfuse's median
# of RUNS after a warm-up, one run of the CPU engine above 20 Mbp).
# Inputs: the lambda phage and E. coli MG1655 (bundle/data), 70 Mbp of human
# chrX (smalt-examples' hs37chrXtrunc.fa.gz, when bundle/data has it) and a
# random genome of RANDOM_MBP Mbp (fixed seed). When bundle/peers/bin has
# seqan3-fm-build (scripts/build-seqan3-driver.sh), SeqAn 3's FM-index
# construction over the same two strands is timed too (one run). Writes the
# table to $OUT/bwt-bench.md. Needs bundle/ made with --data (bwa in
# bundle/peers).
#   DEVICE_EXTRA=scripts/device-bwt-bench.sh bash scripts/device-run.sh --no-cpu-tests
# Environment: RUNS (default 3), RANDOM_MBP (default 20), BWT_INPUTS (a subset
# of: lambda ecoli chrx random), OUT.
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle
export PATH="$PWD/bundle/peers/bin:$PATH"
sf=bundle/bin/seqfuse
runs=${RUNS:-3}
mbp=${RANDOM_MBP:-20}
threads=$(nproc)
work=/tmp/seqfuse-bwt-bench
mkdir -p "$work"
table="${OUT:-$work}/bwt-bench.md"
mkdir -p "$(dirname "$table")"
failures=0

gzip -dc bundle/data/lambda_virus.fa.gz >"$work/lambda.fa"
gzip -dc bundle/data/ecoli_MG1655.fasta.gz >"$work/ecoli.fa"
inputs=(lambda ecoli)
if [ -f bundle/data/hs37chrXtrunc.fa.gz ]; then
  gzip -dc bundle/data/hs37chrXtrunc.fa.gz >"$work/chrx.fa"
  inputs+=(chrx)
fi
inputs+=(random)
# BWT_INPUTS="chrx random" runs a subset.
[ -n "${BWT_INPUTS:-}" ] && read -r -a inputs <<<"$BWT_INPUTS"
seqan=""
[ -x bundle/peers/bin/seqan3-fm-build ] && seqan=bundle/peers/bin/seqan3-fm-build
[[ " ${inputs[*]} " == *" random "* ]] && python3 - "$work/random.fa" "$mbp" <<'PY'
import random, sys
path, mbp = sys.argv[1], int(sys.argv[2])
rng = random.Random(20261125)
four = ["".join("ACGT"[(b >> s) & 3] for s in (6, 4, 2, 0)) for b in range(256)]
letters = "".join(four[b] for b in rng.randbytes(mbp * 250000))  # 4 bases a byte
with open(path, "w") as out:
    out.write(">random_%d_Mbp\n" % mbp)
    for i in range(0, len(letters), 80):
        out.write(letters[i:i + 80] + "\n")
PY
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
seconds() {  # seconds CMD...: wall seconds of one run (its output to the log)
  local t0 t1
  t0=$(date +%s%N)
  "$@" >>"$work/log" 2>&1 || { echo "FAIL: $*" >&2; tail -n 3 "$work/log" >&2; return 1; }
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", (b - a) / 1e9}'
}

{
  echo "# seqfuse bwt beside bwa index ($(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1), $threads threads)"
  echo ""
  echo "bundle $(sed -n 's/^commit=//p' bundle/BUILD_INFO); wall seconds, whole process; seqfuse: median of $runs after one warm-up, bwa: one run"
  echo ""
  echo "| input | bases | bwa index | SeqAn 3 fm_index | seqfuse cpu | seqfuse gpu | gpu, 8 buckets | bwa / gpu | SeqAn / gpu | cpu / gpu | files identical |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
} | tee "$table"

for name in "${inputs[@]}"; do
  fa="$work/$name.fa"
  bases=$(grep -v '^>' "$fa" | tr -d '\n' | wc -c)
  bwa_s=$(seconds bwa index -p "$work/bwa-$name" "$fa") || { failures=$((failures + 1)); continue; }
  seqan_s=nan
  if [ -n "$seqan" ]; then
    seqan_s=$(seconds "$seqan" "$fa" --both-strands) || { failures=$((failures + 1)); seqan_s=nan; }
    tail -n 1 "$work/log"  # its own read and build times
  fi
  # The bucketed sort, forced: about eight buckets of the text's two strands.
  buckets=$((bases * 2 / 8 + 1000))
  for device in cpu gpu buckets; do
    engine=$device
    env=(env)
    [ $device = buckets ] && engine=gpu env=(env SEQFUSE_BWT_BUCKET_SUFFIXES=$buckets)
    reps=$runs
    [ $device = cpu ] && [ "$bases" -gt 20000000 ] && reps=1  # libdivsufsort: one thread, slow
    if [ "$reps" -gt 1 ]; then
      seconds "${env[@]}" "$sf" bwt "$fa" -p "$work/$device-$name" --device "$engine" -t "$threads" >/dev/null ||
        { failures=$((failures + 1)); continue 2; }
    fi
    times=()
    for _ in $(seq "$reps"); do
      t=$(seconds "${env[@]}" "$sf" bwt "$fa" -p "$work/$device-$name" --device "$engine" -t "$threads") ||
        { failures=$((failures + 1)); continue 3; }
      times+=("$t")
    done
    printf -v "${device}_s" '%s' "$(printf '%s\n' "${times[@]}" | median)"
  done
  same=yes
  for ext in bwt sa pac ann amb; do
    for device in cpu gpu buckets; do
      cmp -s "$work/bwa-$name.$ext" "$work/$device-$name.$ext" || same=no
    done
  done
  [ $same = yes ] || failures=$((failures + 1))
  awk -v n="$name" -v b="$bases" -v w="$bwa_s" -v q="$seqan_s" -v c="$cpu_s" -v g="$gpu_s" -v k="$buckets_s" -v s="$same" \
    'BEGIN {printf "| %s | %d | %.3f | %s | %.3f | %.3f | %.3f | %.1f | %s | %.1f | %s |\n", n, b, w,
            (q == "nan" ? "-" : sprintf("%.3f", q)), c, g, k, w / g, (q == "nan" ? "-" : sprintf("%.1f", q / g)), c / g, s}' |
    tee -a "$table"
done
echo ""
echo "traced GPU run (${inputs[-1]}):"
SEQFUSE_TRACE=1 "$sf" bwt "$work/${inputs[-1]}.fa" -p "$work/trace" --device gpu -t "$threads" 2>&1 | tail -n 16
echo ""
echo "traced GPU run, 8 buckets forced (${inputs[-1]}): window rounds, tied suffixes, doubling rounds"
bases=$(grep -v '^>' "$work/${inputs[-1]}.fa" | tr -d '\n' | wc -c)
SEQFUSE_TRACE=1 SEQFUSE_BWT_BUCKET_SUFFIXES=$((bases * 2 / 8 + 1000)) "$sf" bwt "$work/${inputs[-1]}.fa" \
  -p "$work/trace" --device gpu -t "$threads" 2>&1 | grep -E "bwt gpu|sorted|written" | tail -n 40
echo "device-bwt-bench: $failures failure(s); table: $table"
exit $((failures > 0))
