#!/usr/bin/env bash
# Two seqfuse builds side by side on the GPU machine, for changes that must
# not change behaviour (a refactor): ours (bundle/bin/seqfuse) and BASELINE
# (another build carried beside the bundle, e.g. build-before/seqfuse made
# from the commit before). Each workload runs RUNS times per build, the
# two builds alternating (and which goes first alternating by round); every
# output of ours must be byte-identical to the baseline's, and each
# workload's median wall time is printed for both with the ratio (baseline /
# ours: above 1, ours is faster).
# The workloads cover the align paths (search resident and in parts, with
# and without traceback; all against all; --pairs with traceback), kmer-count
# (database, histogram, dump; plain and gzip input) and embed (a random
# ESM-2 8M-shaped model, fp32 and bf16; the small test checkpoint).
# Needs bundle/ made with --data. Standalone or as device-run.sh's extra step:
#   BASELINE=build-before/seqfuse DEVICE_EXTRA=scripts/device-compare-builds.sh \
#     bash scripts/device-run.sh --no-cpu-tests
# Environment: BASELINE (required), RUNS (default 3), COMPARE_ONLY (workload
# names, space-separated; default all), OUT (the results table is also
# written to $OUT/compare-builds.md).
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle

ours=bundle/bin/seqfuse
base=${BASELINE:?BASELINE=path of the other seqfuse build}
runs=${RUNS:-3}
threads=$(nproc)
work=/tmp/seqfuse-compare
data=bundle/data
mkdir -p "$work"
table="${OUT:-$work}/compare-builds.md"
mkdir -p "$(dirname "$table")"
failures=0

die() { echo "device-compare-builds: error: $*" >&2; exit 1; }
[ -x "$ours" ] || die "no $ours"
[ -x "$base" ] || die "no baseline build at $base"

# ---- inputs (fixed seeds: every machine makes the same files) ----------------
prepare() {
  gzip -dc "$data/mmseqs_DB.fasta.gz" >"$work/DB.fasta" || return 1
  gzip -dc "$data/mmseqs_QUERY.fasta.gz" >"$work/QUERY.fasta" || return 1
  head -n 1000 "$work/QUERY.fasta" >"$work/QUERY_small.fasta"
  scripts/make-dna-pairs.sh 200000 150 "$data/lambda_virus.fa.gz" "$work/pairs" || return 1
  scripts/make-bench-data.sh --from "$data" --into "$work/reads" --target-mb 300 >/dev/null ||
    return 1
  gzip -dc "$data/shovill_R1.fq.gz" >"$work/small.fq"
  python3 scripts/make-random-esm.py "$work/esm8m" t6 2000 7 >/dev/null || return 1
}

# ---- one workload: NAME, then the seqfuse arguments with @SF@ for the binary
# and @OUT@ for the output prefix; an output is every file @OUT@* -------------
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

compare() {
  local name=$1
  shift
  if [ -n "${COMPARE_ONLY:-}" ] && [[ " $COMPARE_ONLY " != *" $name "* ]]; then return 0; fi
  local run build bin prefix t ours_t=() base_t=() same=yes
  for run in $(seq "$runs"); do
    # Who goes first alternates: a process can pay for the one before it
    # (the driver's teardown of its context), so neither build always does.
    local order="ours base"
    ((run % 2 == 0)) && order="base ours"
    for build in $order; do
      bin=$ours
      [ $build = base ] && bin=$base
      prefix="$work/out-$name-$build"
      rm -f "$prefix"*
      local cmd=("${@//@OUT@/$prefix}")
      cmd=("${cmd[@]//@SF@/$bin}")
      local t0 t1
      t0=$(date +%s%N)
      if ! with_bundle_libs "${cmd[@]}" 2>"$work/err-$name-$build"; then
        echo "FAIL $name ($build): $(tail -n 1 "$work/err-$name-$build")"
        failures=$((failures + 1))
        return 0
      fi
      t1=$(date +%s%N)
      t=$(((t1 - t0) / 1000000))
      if [ $build = ours ]; then ours_t+=("$t"); else base_t+=("$t"); fi
    done
    local f
    for f in "$work/out-$name-ours"*; do
      cmp -s "$f" "${f/-ours/-base}" || { same=no; echo "DIFFERS $name: $(basename "$f")"; }
    done
  done
  [ $same = yes ] || failures=$((failures + 1))
  local mo mb
  mo=$(printf '%s\n' "${ours_t[@]}" | median)
  mb=$(printf '%s\n' "${base_t[@]}" | median)
  local row
  row=$(awk -v n="$name" -v o="$mo" -v b="$mb" -v s="$same" -v a="${ours_t[*]}" -v c="${base_t[*]}" \
    'BEGIN {printf "| %s | %.3f | %.3f | %.3f | %s | %s / %s |", n, o / 1000, b / 1000, b / o, s, a, c}')
  echo "$row" | tee -a "$table"
}

prepare || die "making the inputs failed"
{
  echo "# seqfuse: two builds side by side ($(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1), $threads threads)"
  echo ""
  echo "ours: $ours ($(sed -n 's/^commit=//p' bundle/BUILD_INFO 2>/dev/null)); baseline: $base; $runs runs each, alternating; wall times in s"
  echo ""
  echo "| workload | ours median | baseline median | baseline / ours | outputs identical | runs ms (ours / baseline) |"
  echo "|---|---|---|---|---|---|"
} | tee "$table"

q=$work/QUERY.fasta db=$work/DB.fasta
compare search-sw @SF@ align-sw "$q" "$db" -t "$threads" -o @OUT@.tsv
compare search-nw-traceback @SF@ align-nw "$q" "$db" --traceback -t "$threads" -o @OUT@.tsv
compare search-parts-traceback env SEQFUSE_ALIGN_PART_RESIDUES=2000000 @SF@ align-sw "$q" "$db" \
  --traceback --top 5 -t "$threads" -o @OUT@.tsv
compare search-32bit-lanes env SEQFUSE_ALIGN_LANES=32 @SF@ align-sw "$work/QUERY_small.fasta" "$db" \
  -t "$threads" -o @OUT@.tsv
compare all-vs-all-blast6 @SF@ align-sw "$q" --top 5 --format blast6 -t "$threads" -o @OUT@.tsv
compare pairs-sw-traceback @SF@ align-sw "$work/pairs/q.fa" "$work/pairs/t.fa" --pairs \
  --traceback -t "$threads" -o @OUT@.tsv
compare pairs-nw-cpu @SF@ align-nw "$work/pairs/q.fa" "$work/pairs/t.fa" --pairs --device cpu \
  -t "$threads" -o @OUT@.tsv
compare kmer-k31-db-histo @SF@ kmer-count -k 31 "$work/reads/fastq/reads.fq" -t "$threads" \
  -o @OUT@.kdb --histo @OUT@.histo
compare kmer-k25-gzip-dump @SF@ kmer-count -k 25 "$data/shovill_R1.fq.gz" -t "$threads" \
  --dump @OUT@.dump --histo @OUT@.histo
compare kmer-k21-cpu @SF@ kmer-count -k 21 "$work/small.fq" --device cpu -t "$threads" \
  --histo @OUT@.histo
compare embed-8m-fp32 @SF@ embed --model "$work/esm8m/model" "$work/esm8m/proteins.fa" \
  --dtype fp32 -t "$threads" -o @OUT@.npy
compare embed-8m-bf16-layers @SF@ embed --model "$work/esm8m/model" "$work/esm8m/proteins.fa" \
  --dtype bf16 --layers 0 3 6 --pool bos -t "$threads" -o @OUT@.npy
compare embed-test-model-tsv @SF@ embed --model tests/data/embed/esm_hd64_fp32_saved \
  "$work/esm8m/proteins.fa" -t "$threads" -o @OUT@.tsv

echo ""
echo "device-compare-builds: $failures workload(s) failed or differed; table: $table"
exit $((failures > 0))
