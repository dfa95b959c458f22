#!/usr/bin/env bash
# Issue 20, "under load": 8 seqfuse processes share one GPU. Each job runs
# alone first (its output is the reference), then all 8 start together,
# ROUNDS times. A job passes when it exits 0 with output byte-identical to
# its lone run, or exits 1 with one clear device-memory line and no output
# file; anything else (a signal, another error, different bytes) fails.
# Jobs: kmer-count x2 (reads, a genome), align-sw search x2 (proteins; DNA),
# align-nw --traceback, embed x2 (bf16, fp32), bwt, fastq-trim: 9 kinds, the
# first 8 (or JOBS of them) in a round.
# Writes $OUT/load-test.md. Runs inside the carried bundle:
#   bash scripts/device-load-test.sh
# Environment: ROUNDS (default 3), PAIRS (default 1000000), JOBS (default 8),
# SEQFUSE_BIN (another seqfuse, e.g. a wrapper for a dry run on the CPU), OUT.
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
repo=$PWD
sf=${SEQFUSE_BIN:-$repo/bundle/bin/seqfuse}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/seqfuse-load.XXXXXX)
table=$OUT/load-test.md
rounds=${ROUNDS:-3}
td=$repo/tests/data
cd "$work" || exit 1
"$repo/bundle/bin/seqfuse-simulate-reads" --trim-pairs "${PAIRS:-1000000}" 150 20261126 r1.fq r2.fq || exit 1
ecoli=$repo/bundle/data/ecoli_MG1655.fasta.gz

# name|output file|command (writes the output file given as {})
job_list=(
  "kmer-count reads|k1.kdb|$sf kmer-count --device gpu -k 25 $work/r1.fq $work/r2.fq -o {}"
  "kmer-count genome|k2.histo|$sf kmer-count --device gpu -k 31 $ecoli --histo {} -o /dev/null"
  "align-sw proteins|a1.tsv|$sf align-sw --device gpu $repo/bundle/data/mmseqs_QUERY.fasta.gz $repo/bundle/data/mmseqs_QUERY.fasta.gz --top 5 -o {}"
  "align-sw DNA|a2.tsv|$sf align-sw --device gpu $td/align/lambda_queries.fa $td/align/lambda_targets.fa -o {}"
  "embed bf16|e1.tsv|$sf embed --device gpu --dtype bf16 --model $td/embed/esm_hd32_bf16_hub $repo/data/proteins.fa -o {}"
  "bwt genome|b1|$sf bwt --device gpu -p {} $ecoli"
  "fastq-trim pairs|t1.fq|$sf fastq-trim --device gpu -i $work/r1.fq -I $work/r2.fq -o {} -O {}.2"
  "align-nw traceback|a3.sam|$sf align-nw --device gpu --traceback --format sam $td/align/proteins_queries.fa $td/align/proteins_targets.fa -o {}"
  "embed fp32|e2.tsv|$sf embed --device gpu --dtype fp32 --model $td/embed/esm_hd64_fp32_saved $repo/data/proteins.fa -o {}"
)
count=${JOBS:-8}

outputs_of() {  # the files a job writes, for output name $1
  case $1 in
    b1*) printf '%s\n' "$1".bwt "$1".sa "$1".pac "$1".ann "$1".amb ;;
    t1*) printf '%s\n' "$1" "$1".2 ;;
    *) printf '%s\n' "$1" ;;
  esac
}
run_job() {  # run_job INDEX DIR: runs job INDEX writing into DIR; rc in DIR/INDEX.rc
  local entry=${job_list[$1]} dir=$2
  local out=${entry#*|}
  out=${out%%|*}
  local cmd=${entry#*|*|}
  cmd=${cmd//\{\}/$out}
  # In DIR, so that a command line written into the output (SAM's @PG) is the same.
  (cd "$dir" && { $cmd >/dev/null 2>"$1.err"; echo $? >"$1.rc"; })
}

echo "== lone runs" >&2
mkdir -p solo
for i in "${!job_list[@]}"; do
  run_job "$i" solo
  [ "$(cat solo/$i.rc)" = 0 ] || { echo "lone run of ${job_list[$i]%%|*} failed: $(tail -n1 solo/$i.err)" >&2; exit 1; }
done

{
  echo "# 8 seqfuse processes on one GPU (issue 20)"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ), GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1), bundle $(sed -n 's/^commit=//p' "$repo/bundle/BUILD_INFO")"
  echo "- command: \`ROUNDS=$rounds bash scripts/device-load-test.sh\`; $count jobs a round, started together"
  echo
  echo "| round | job | exit | verdict | peak GPU memory seen (MiB, all processes) |"
  echo "|---|---|---|---|---|"
} >"$table"
failures=0
for round in $(seq "$rounds"); do
  dir=round$round
  mkdir -p "$dir"
  # A round's jobs start together; the next round rotates which 8 of the 9 kinds run.
  picks=()
  for k in $(seq 0 $((count - 1))); do picks+=($(((k + round - 1) % ${#job_list[@]}))); done
  peak=0
  for i in "${picks[@]}"; do run_job "$i" "$dir" & done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
    used=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -n1)
    [ "${used:-0}" -gt "$peak" ] && peak=$used
    sleep 0.2
  done
  wait
  for i in "${picks[@]}"; do
    entry=${job_list[$i]}
    name=${entry%%|*}
    out=${entry#*|}
    out=${out%%|*}
    rc=$(cat "$dir/$i.rc")
    verdict=identical
    if [ "$rc" = 0 ]; then
      while read -r f; do cmp -s "solo/$f" "$dir/$f" || verdict="DIFFERENT ($f)"; done < <(outputs_of "$out")
    elif [ "$rc" = 1 ] && [ "$(wc -l <"$dir/$i.err")" -le 2 ] &&
      grep -qiE 'GPU memory|device memory|out of memory' "$dir/$i.err"; then
      verdict="clean memory error: $(tail -n1 "$dir/$i.err")"
      while read -r f; do [ ! -e "$dir/$f" ] || verdict="LEFT $f after: $(tail -n1 "$dir/$i.err")"; done < <(outputs_of "$out")
    else
      verdict="FAILED: $(tail -n1 "$dir/$i.err")"
    fi
    case $verdict in identical | clean*) ;; *) failures=$((failures + 1)) ;; esac
    echo "| $round | $name | $rc | $verdict | $peak |" >>"$table"
  done
done
echo >>"$table"
echo "Failures: $failures of $((rounds * count)) runs." >>"$table"
cat "$table"
cd / && rm -rf "$work"
[ "$failures" -eq 0 ]
