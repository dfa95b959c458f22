#!/usr/bin/env bash
# Two identical runs give identical bytes, for every subcommand and every
# output format it has (issue 19 point 5). Each case runs twice on the CPU
# engine, in two fresh folders with the same relative output paths: first
# with one thread (-t 1, fastq-trim's -w 1), then with two, because no output
# may depend on the thread count. Every file either run writes, and its
# stdout, must exist in both and compare equal with cmp; .gz outputs are
# compared as written (BGZF bytes, not their zcat).
#
# Volatile fields, removed before the comparison and nothing else:
#   - the --json run report (*.report.json; docs/json-report.md): `seconds`
#     and `throughput` (wall-clock time), `command_line` (argv: it holds the
#     -t that differs between the runs) and `device.threads` (that -t again,
#     resolved);
#   - fastq-trim's fastp-style -j report (fastp.json): its "command" line
#     (argv, with -w), the line fastq_trim_vs_fastp.sh drops too; the
#     report has no time fields;
#   - fastq-trim's -h HTML report (fastp.html): the command line under
#     "<h2 id='command'>", for the same reason;
#   - the CL: field of SAM's @PG header line: the command line. A .sam.gz
#     is compared decompressed for that reason; its BGZF bytes are compared
#     by a case that runs both times with the same -t.
#   - info's GPU lines' "(N GiB free)" (info.txt): the device memory free
#     now; a CPU machine lists no GPU, so there the file is compared whole.
# `info` prints the thread count it was given ("threads: N"), so both of its
# runs use -t 1.
# Usage: rerun_identical.sh SEQFUSE_BINARY TESTS_DATA_DIR
set -euo pipefail
seqfuse=$(realpath "$1")
tdata=$(realpath "$2")
data=$(realpath "$tdata/../../data")  # the README's example inputs
command -v jq >/dev/null || { echo "FAIL: jq not found (scripts/setup.sh installs it)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=0 files=0 failed=0

# normalized FILE: the bytes compared (the volatile fields above removed).
normalized() {
  case "$1" in
    *.report.json) jq 'del(.seconds, .throughput, .command_line, .device.threads)' "$1" ;;
    */fastp.json) grep -v '^[[:space:]]*"command": ' "$1" ;;
    */fastp.html) sed "/<h2 id='command'>/{n;d}" "$1" ;;
    *.sam.gz) gzip -dc "$1" | sed 's/^\(@PG\t.*\)\tCL:.*$/\1/' ;;
    *.sam) sed 's/^\(@PG\t.*\)\tCL:.*$/\1/' "$1" ;;
    */info.txt) sed 's/ ([0-9.]* GiB free)$//' "$1" ;;
    *) cat "$1" ;;
  esac
}

# twice NAME COMMAND: runs the shell COMMAND in $work/NAME.1 with T=1 and in
# $work/NAME.2 with T=2 ($T is the thread count; $SF the binary), then
# compares every file the two runs left.
twice() {
  local name=$1 cmd=$2 t dir f rc
  cases=$((cases + 1))
  for t in 1 2; do
    dir="$work/$name.$t"
    mkdir "$dir"
    rc=0
    (cd "$dir" && T=$t SF="$seqfuse" bash -c "set -eo pipefail; $cmd" >stdout 2>"$work/$name.$t.err") || rc=$?
    if [ $rc -ne 0 ]; then
      echo "FAIL $name (-t $t): exit status $rc: $cmd"; sed 's/^/    | /' "$work/$name.$t.err" | head -5
      failed=$((failed + 1)); return
    fi
  done
  local list1 list2
  list1=$(cd "$work/$name.1" && find . -type f | sort)
  list2=$(cd "$work/$name.2" && find . -type f | sort)
  if [ "$list1" != "$list2" ]; then
    echo "FAIL $name: the runs wrote different files:"; diff <(echo "$list1") <(echo "$list2") | sed 's/^/    /'
    failed=$((failed + 1)); return
  fi
  local bad=0
  for f in $list1; do
    files=$((files + 1))
    if [[ "$f" =~ (\.report\.json|/fastp\.json|/fastp\.html|\.sam|\.sam\.gz|/info\.txt)$ ]]; then
      cmp -s <(normalized "$work/$name.1/$f") <(normalized "$work/$name.2/$f") && continue
    else
      cmp -s "$work/$name.1/$f" "$work/$name.2/$f" && continue
    fi
    echo "FAIL $name: $f differs between -t 1 and -t 2: $cmd"
    cmp "$work/$name.1/$f" "$work/$name.2/$f" 2>&1 | sed 's/^/    /' || true
    bad=1
  done
  [ $bad -eq 0 ] || failed=$((failed + 1))
}

A="$tdata/align"
# The protein searches take the first 8 queries (against all targets): the
# whole set costs seconds at one thread, and 8 still fill both threads.
awk '/^>/{n++} n <= 8' "$A/proteins_queries.fa" > "$work/pq.fa"
# --- align-sw / align-nw: every format, search (QUERY against TARGET, and
# QUERY against itself), --pairs, --traceback, .gz, the run report
for mode in sw nw; do
  for fmt in tsv csv sam blast6; do
    twice "$mode-$fmt-search" "\$SF align-$mode $work/pq.fa $A/proteins_targets.fa --format $fmt --device cpu -t \$T -q -o hits.$fmt --json r.report.json"
    twice "$mode-$fmt-self-top" "\$SF align-$mode $A/lambda_queries.fa --top 3 --format $fmt --device cpu -t \$T -q -o hits.$fmt"
    twice "$mode-$fmt-pairs" "\$SF align-$mode $A/lambda_queries.fa $A/lambda_targets.fa --pairs --format $fmt --device cpu -t \$T -q -o hits.$fmt"
    twice "$mode-$fmt-traceback" "\$SF align-$mode $work/pq.fa $A/proteins_targets.fa --traceback --format $fmt --device cpu -t \$T -q -o hits.$fmt"
    twice "$mode-$fmt-pairs-traceback-gz" "\$SF align-$mode $A/lambda_queries.fa $A/lambda_targets.fa --pairs --traceback --format $fmt --device cpu -t \$T -q -o hits.$fmt.gz --json r.report.json"
  done
done
twice "sw-sam-gz-same-threads" "\$SF align-sw $A/lambda_queries.fa $A/lambda_targets.fa --pairs --traceback --format sam --device cpu -t 2 -q -o hits.sam.gz"
twice "sw-stdout-compress" "\$SF align-sw $work/pq.fa --format blast6 --device cpu -t \$T -q --compress --compress-level 9 > hits.b6.gz"

# --- kmer-count: the database, --dump, --histo (plain and .gz), the report;
# then the database actions dump, histo, query, stats on it
K="$tdata/kmer"
twice kmer-count "\$SF kmer-count -k 15 $K/edge.fq $data/reads.fq --device cpu -t \$T -q -o e.kdb --dump e.dump --histo e.histo --json r.report.json"
twice kmer-count-gz "\$SF kmer-count -k 21 --no-canonical -L 2 $data/reads.fq $K/edge.fa --device cpu -t \$T -q -o e.kdb --dump e.dump.gz --histo e.histo.gz"
twice kmer-count-stdout "\$SF kmer-count -k 31 $data/reads.fq --device cpu -t \$T -q --dump - --compress"
twice kmer-db-actions "\$SF kmer-count -k 15 $K/edge.fq $data/reads.fq --device cpu -t \$T -q -o e.kdb &&
  \$SF kmer-count dump e.kdb -q -o d.txt --json d.report.json &&
  \$SF kmer-count dump e.kdb -q -L 2 -U 4 -o d2.txt.gz &&
  \$SF kmer-count histo e.kdb -q --low 2 --high 50 --increment 3 -o h.txt --json h.report.json &&
  \$SF kmer-count dump e.kdb -q | awk 'NR % 50 == 1 {print \$1}' > k.txt &&
  \$SF kmer-count query e.kdb -q -f k.txt ACGTACGTACGTACG -o q.txt --json q.report.json &&
  awk '{print \">k\" NR; print \$1}' k.txt > k.fa && \$SF kmer-count query e.kdb -q -f k.fa -o q2.txt.gz &&
  \$SF kmer-count stats e.kdb -q -o s.txt --json s.report.json &&
  \$SF kmer-count stats e.kdb -q -L 2 -U 3 -o s2.txt.gz"

# --- bwt: bwa format (all five files), raw format, --forward-only, the report
B="$tdata/bwt/multi.fa"
twice bwt-bwa "\$SF bwt $B -p idx --device cpu -t \$T -q --json r.report.json"
twice bwt-bwa-lambda "\$SF bwt $data/lambda_virus.fa.gz -p idx --sa-interval 4 --device cpu -t \$T -q"
twice bwt-raw "\$SF bwt $B -p raw --format raw --device cpu -t \$T -q --json r.report.json"
twice bwt-raw-forward "\$SF bwt $data/lambda_virus.fa.gz -p raw --format raw --forward-only --device cpu -t \$T -q"

# --- fastq-trim: reads out (plain and gzip), every other read file, the
# fastp-style JSON and HTML reports
# The CPU engine trims chunks of 1,000 records (pairs) on the -w threads, so
# the example pairs (500) are taken five times over: 2,500 pairs, three
# chunks, whose order the output must keep whichever thread finishes first
# (and -D must keep the first copy of each repeat). -e 33 fails a part of
# the reads, one mate or both: every read file gets reads.
for r in 1 2; do
  for _ in 1 2 3 4 5; do cat "$data/adapter_reads_$r.fq.gz"; done > "$work/r$r.fq.gz"
done
twice trim-se "\$SF fastq-trim -i $work/r1.fq.gz -o out.fq --failed_out failed.fq -j fastp.json -h fastp.html -e 33 -3 -y --device cpu -w \$T --quiet"
twice trim-pe "\$SF fastq-trim -i $work/r1.fq.gz -I $work/r2.fq.gz -o o1.fq.gz -O o2.fq.gz --unpaired1 u1.fq --unpaired2 u2.fq --failed_out failed.fq.gz -j fastp.json -h fastp.html --detect_adapter_for_pe -c -l 60 -e 33 --device cpu -w \$T --quiet"
twice trim-pe-overlap-dedup "\$SF fastq-trim -i $work/r1.fq.gz -I $work/r2.fq.gz -o o1.fq -O o2.fq --overlapped_out ov.fq -D -x -j fastp.json -h fastp.html --device cpu -w \$T --quiet"
twice trim-stdout "\$SF fastq-trim -i $data/reads.fq --stdout -j fastp.json -h '' -z 6 --device cpu -w \$T --quiet"

# --- embed: every --format and --pool, .gz, the report; the tiny test models
E="$tdata/embed"
awk '/^>/{keep = $1 != ">all_unknown"} keep' "$E/proteins.fa" > "$work/p.fa"  # as golden_outputs
for fmt in tsv npy h5; do
  for pool in mean bos none; do
    twice "embed-$fmt-$pool" "\$SF embed --model $E/esm_hd16_fp32_hub $work/p.fa --format $fmt --pool $pool --toks-per-batch 100 --device cpu -t \$T -q -o e.$fmt --json r.report.json"
  done
done
twice embed-layers-gz "\$SF embed --model $E/esm_hd64_fp32_saved $work/p.fa --layers 0 -1 --device cpu -t \$T -q -o e.tsv.gz"
twice embed-bf16-h5 "\$SF embed --model $E/esm_hd32_bf16_hub $work/p.fa --layers 0 1 --pool none --device cpu -t \$T -q -o e.h5"
twice embed-fp16-npy "\$SF embed --model $E/esm_hd24_fp16_saved $work/p.fa --toks-per-batch 64 --device cpu -t \$T -q -o e.npy"

# --- info: what the build and machine offer (one thread count: it prints it)
twice info "\$SF info -t 1 -q -o info.txt --json r.report.json"

echo "rerun identical: $cases cases, $files files compared, $failed failed"
[ "$failed" -eq 0 ]
