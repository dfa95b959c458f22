#!/usr/bin/env bash
# The benchmark cases: each times a seqfuse command against its peer tool on
# real data through bench/compare.sh, which appends a row to the results page.
# To add a case: write a case_<name> function (it may call skip) and add
# <name> to CASES. A case whose binary or data is missing is skipped with a
# line saying why; it does not fail the run.
#
# Usage: bench/run.sh [--quick] [--bin DIR] [--seeds DIR] [--work DIR]
#          [--results FILE | --results-dir DIR] [--json-dir DIR] [--only NAME]...
#   --quick        small inputs (50 MB) and 3 runs: checks the plumbing
#   --bin DIR      seqfuse binaries (default: bundle/bin, else build-bundle/bin,
#                  build-cuda/bin, build/bin: the first holding the program)
#   --seeds DIR    small real inputs (default: bundle/data, else bench/work/seeds)
#   --work DIR     where the big inputs are built (default: bench/work when it
#                  holds the seeds, else ${TMPDIR:-/tmp}/seqfuse-bench)
#   --results, --results-dir, --json-dir: passed to bench/compare.sh
#   --only NAME    run only this case (repeatable); names are listed below
#   --runs N, --warmup N   timed runs and warm-up runs per comparison (default
#                  10 and 2; cases with slow peers use fewer)
# Environment: BENCH_JELLYFISH=0 leaves out the Jellyfish rows of the k-mer cases.
# Peer tools (hyperfine, zcat, ...) come from PATH: put bundle/peers/bin first.
set -euo pipefail

CASES=(fastq_parse_plain fastq_parse_gzip protein_search protein_search_cpu kmer_count kmer_count_gzip kmer_count_cpu dna_pairs fastq_trim_cpu)

repo=$(cd "$(dirname "$0")/.." && pwd)
quick=0 bin="" seeds="" work="" runs=10 warmup=2
compare_args=()
only=()
failed=() skipped=() passed=()

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
  echo "Cases: ${CASES[*]}"
}
log() { echo "bench: $*"; }
die() { echo "bench: error: $*" >&2; exit 1; }
q() { printf '%q' "$1"; }  # quote a path for the command strings hyperfine runs

# A case calls skip and returns when it cannot run here; the reason is logged.
skip() { skip_reason=$*; }

find_bin() {  # find_bin NAME: path of a seqfuse program, empty when not built
  local dir
  for dir in "$bin" "$repo/bundle/bin" "$repo/build-bundle/bin" "$repo/build-cuda/bin" "$repo/build/bin"; do
    [ -n "$dir" ] && [ -x "$dir/$1" ] && { echo "$dir/$1"; return 0; }
    [ -n "$bin" ] && return 0  # --bin given: look nowhere else
  done
  return 0
}

need_tool() {  # need_tool NAME...: true when all are on PATH, else skip
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null || { skip "$t is not on PATH"; return 1; }
  done
}

# Builds (or reuses) the FASTQ inputs once per run; sets fastq_dir.
fastq_dir=""
prepare_fastq() {
  [ -z "$fastq_dir" ] || return 0
  local target_mb=200
  ((quick)) && target_mb=50
  if [ ! -f "$seeds/shovill_R1.fq.gz" ]; then
    skip "no seeds in '$seeds' (scripts/make-bench-data.sh here; device-bundle.sh --data for the GPU machine)"
    return 1
  fi
  "$repo/scripts/make-bench-data.sh" --from "$seeds" --into "$work" --target-mb "$target_mb" ||
    { skip "building the FASTQ input failed"; return 1; }
  fastq_dir="$work/fastq"
}

fastq_desc() {  # input column: what the file is, its reads and size
  local gz=${1:-}
  local summary
  summary=$(sed -n 's/^summary=//p' "$fastq_dir/reads.info")
  if [ -n "$gz" ]; then
    echo "$summary; gzip -6 $(($(wc -c <"$fastq_dir/reads.fq.gz") / 1000000)) MB"
  else
    echo "$summary; plain"
  fi
}

compare() {  # compare NAME SEQFUSE PEER CHECK DESC
  "$repo/bench/compare.sh" --name "$1" --seqfuse "$2" --peer "$3" --check "$4" \
    --input-desc "$5" --runs "$runs" --warmup "$warmup" --build "$build" \
    ${compare_args[@]+"${compare_args[@]}"}
}

# ---- cases -------------------------------------------------------------------

# FASTQ parsing, plain text: the reader against a bare line count, the least
# any FASTQ reader must do. Check: records = lines / 4.
case_fastq_parse_plain() {
  local io f
  io=$(find_bin seqfuse-io-bench)
  [ -n "$io" ] || { skip "seqfuse-io-bench is not built"; return 0; }
  need_tool wc || return 0
  prepare_fastq || return 0
  f="$fastq_dir/reads.fq"
  compare fastq-parse-plain "$(q "$io") $(q "$f")" "wc -l $(q "$f")" \
    "test \"\$($(q "$io") $(q "$f") | sed -n 's/^records=\\([0-9]*\\) .*/\\1/p')\" = \"\$((\$(wc -l < $(q "$f")) / 4))\"" \
    "$(fastq_desc)"
}

# FASTQ parsing, gzip: the reader (inflate + parse) against zcat (inflate only).
case_fastq_parse_gzip() {
  local io f
  io=$(find_bin seqfuse-io-bench)
  [ -n "$io" ] || { skip "seqfuse-io-bench is not built"; return 0; }
  need_tool zcat wc || return 0
  prepare_fastq || return 0
  f="$fastq_dir/reads.fq.gz"
  compare fastq-parse-gzip "$(q "$io") $(q "$f")" "zcat $(q "$f") > /dev/null" \
    "test \"\$($(q "$io") $(q "$f") | sed -n 's/^records=\\([0-9]*\\) .*/\\1/p')\" = \"\$((\$(zcat $(q "$f") | wc -l) / 4))\"" \
    "$(fastq_desc gz)"
}

# ---- driver ------------------------------------------------------------------

# protein_inputs DIR N: DIR/DB.fasta, mmseqs2-examples' 20,000 proteins, and
# DIR/QUERY.fasta, the first N of its 500 queries (0: all).
protein_inputs() {
  local dir=$1 n=$2
  mkdir -p "$dir"
  gzip -dc "$seeds/mmseqs_DB.fasta.gz" >"$dir/DB.fasta"
  if ((n > 0)); then
    gzip -dc "$seeds/mmseqs_QUERY.fasta.gz" | awk -v n="$n" '/^>/{k++} k<=n' >"$dir/QUERY.fasta"
  else
    gzip -dc "$seeds/mmseqs_QUERY.fasta.gz" >"$dir/QUERY.fasta"
  fi
}

# Protein search, the issue's workload: MMseqs2's 500 example queries against
# its 20,000 proteins, Smith-Waterman, BLOSUM62 11/1. seqfuse keeps the top 10
# per query (its default device: the GPU where there is one); parasail_aligner
# (every thread, striped "sat" kernels) writes every pair, which is the only
# output it has. The check: every pair's score and end cell, seqfuse --top 0
# CSV against parasail's CSV, sorted.
case_protein_search() {
  local sf dir q db threads runs=3 warmup=1
  sf=$(find_bin seqfuse)
  [ -n "$sf" ] || { skip "seqfuse is not built"; return 0; }
  need_tool parasail_aligner sort cmp || return 0
  [ -f "$seeds/mmseqs_DB.fasta.gz" ] || { skip "no mmseqs_DB.fasta.gz in '$seeds'"; return 0; }
  dir="$work/protein"
  q="$dir/QUERY.fasta" db="$dir/DB.fasta"
  protein_inputs "$dir" $((quick ? 50 : 0))
  threads=$(nproc)
  local parasail="parasail_aligner -x -t $threads -a sw_striped_sat -m blosum62 -o 11 -e 1 -q $(q "$q") -f $(q "$db") -g $(q "$dir/parasail.csv") <&- >/dev/null"
  compare protein-search-sw \
    "$(q "$sf") align-sw $(q "$q") $(q "$db") --top 10 -t $threads -q -o $(q "$dir/seqfuse.tsv")" \
    "$parasail" \
    "$(q "$sf") align-sw $(q "$q") $(q "$db") --top 0 --format csv -t $threads -q | sort -S 2G > $(q "$dir/a.csv") && sort -S 2G $(q "$dir/parasail.csv") > $(q "$dir/b.csv") && cmp $(q "$dir/a.csv") $(q "$dir/b.csv")" \
    "$(grep -c '>' "$q") queries x $(grep -c '>' "$db") proteins (mmseqs2-examples), SW blosum62 11/1, $threads threads"
  "$sf" align-sw "$q" "$db" --top 10 -t "$threads" -o /dev/null 2>&1 | tail -1 | sed 's/^/bench: /'
}

# The CPU engine (--device cpu) against parasail_aligner at the same thread
# count (issue 3: within 1.5x), on the first 50 queries (1/10 of the cells,
# so both finish in seconds) against all 20,000 proteins; same check.
case_protein_search_cpu() {
  local sf dir q db threads
  sf=$(find_bin seqfuse)
  [ -n "$sf" ] || { skip "seqfuse is not built"; return 0; }
  need_tool parasail_aligner sort cmp || return 0
  [ -f "$seeds/mmseqs_DB.fasta.gz" ] || { skip "no mmseqs_DB.fasta.gz in '$seeds'"; return 0; }
  dir="$work/protein-cpu"
  q="$dir/QUERY.fasta" db="$dir/DB.fasta"
  protein_inputs "$dir" 50
  threads=$(nproc)
  runs=3 warmup=1 compare protein-search-sw-cpu \
    "$(q "$sf") align-sw $(q "$q") $(q "$db") --device cpu --top 10 -t $threads -q -o $(q "$dir/seqfuse.tsv")" \
    "parasail_aligner -x -t $threads -a sw_striped_sat -m blosum62 -o 11 -e 1 -q $(q "$q") -f $(q "$db") -g $(q "$dir/parasail.csv") <&- >/dev/null" \
    "$(q "$sf") align-sw $(q "$q") $(q "$db") --device cpu --top 0 --format csv -t $threads -q | sort -S 2G > $(q "$dir/a.csv") && sort -S 2G $(q "$dir/parasail.csv") > $(q "$dir/b.csv") && cmp $(q "$dir/a.csv") $(q "$dir/b.csv")" \
    "50 queries x $(grep -c '>' "$db") proteins (mmseqs2-examples), SW blosum62 11/1, seqfuse on the CPU (--device cpu), $threads threads"
}

# k-mer counting, the issue's workload: 4 M reads of 150 bp simulated from
# the E. coli genome of ragout-examples with 1% substitutions (fixed seed;
# 400 K with --quick), k = 31, canonical, histogram out. KMC (count with
# -ci1 so singletons are kept, then kmc_tools histogram) and Jellyfish
# (count + histo) are the peers; the check: seqfuse's histogram equals
# KMC's non-zero rows (KMC and Jellyfish agree on it, tests/cli checks
# Jellyfish in CI).
kmer_reads=""
prepare_kmer_reads() {
  [ -z "$kmer_reads" ] || return 0
  local sim reads=4000000 dir
  ((quick)) && reads=400000
  sim=$(find_bin seqfuse-simulate-reads)
  [ -n "$sim" ] || { skip "seqfuse-simulate-reads is not built"; return 1; }
  [ -f "$seeds/ecoli_MG1655.fasta.gz" ] || { skip "no ecoli_MG1655.fasta.gz in '$seeds'"; return 1; }
  dir="$work/kmer"
  mkdir -p "$dir"
  if [ ! -f "$dir/reads.fq" ] || [ "$(cat "$dir/reads.stamp" 2>/dev/null)" != "$reads" ]; then
    log "simulating $reads reads of 150 bp (1% substitutions) -> $dir/reads.fq"
    "$sim" "$seeds/ecoli_MG1655.fasta.gz" "$reads" 150 0.01 20261122 >"$dir/reads.fq"
    rm -f "$dir/reads.fq.gz"
    echo "$reads" >"$dir/reads.stamp"
  fi
  kmer_reads="$dir/reads.fq"
}

kmc_command() {  # kmc_command DIR INPUT THREADS: KMC count + histogram into DIR/kmc.histo
  local dir=$1 f=$2 threads=$3
  echo "rm -rf $(q "$dir/kmc_tmp") && mkdir -p $(q "$dir/kmc_tmp") && kmc -k31 -t$threads -ci1 -cs4294967295 $(q "$f") $(q "$dir/kmc") $(q "$dir/kmc_tmp") >/dev/null && kmc_tools -t$threads transform $(q "$dir/kmc") histogram $(q "$dir/kmc.histo") -ci1 -cx100000 >/dev/null"
}

kmer_case() {  # kmer_case NAME INPUT DESC
  local sf threads dir name=$1 f=$2 desc=$3
  sf=$(find_bin seqfuse)
  threads=$(nproc)
  dir=$(dirname "$f")/$name
  mkdir -p "$dir"
  local kmc
  kmc=$(kmc_command "$dir" "$f" "$threads")
  compare "$name-vs-kmc" \
    "$(q "$sf") kmer-count -k 31 -t $threads -q --histo $(q "$dir/seqfuse.histo") $(q "$f")" \
    "$kmc" \
    "awk '\$2 > 0' $(q "$dir/kmc.histo") | tr '\t' ' ' | cmp - $(q "$dir/seqfuse.histo")" \
    "$desc, k=31 canonical, histogram; $threads threads"
  if [ "${BENCH_JELLYFISH:-1}" != 0 ]; then
    jellyfish_case "$name" "$f" "$dir" "$desc"
  fi
  "$sf" kmer-count -k 31 -t "$threads" --histo /dev/null "$f" 2>&1 | tail -1 | sed 's/^/bench: /'
}

jellyfish_case() {  # jellyfish_case NAME INPUT DIR DESC
  local sf threads name=$1 f=$2 dir=$3 desc=$4
  sf=$(find_bin seqfuse)
  threads=$(nproc)
  # Jellyfish reads plain text only: gzip input reaches it through zcat.
  local feed="" jf_in
  jf_in=$(q "$f")
  if [[ "$f" == *.gz ]]; then feed="zcat $(q "$f") | "; jf_in=/dev/fd/0; fi
  local jf="${feed}jellyfish count -C -m 31 -s 200M -t $threads -o $(q "$dir/j.jf") $jf_in && jellyfish histo -t $threads $(q "$dir/j.jf") > $(q "$dir/j.histo")"
  runs=3 warmup=1 compare "$name-vs-jellyfish" \
    "$(q "$sf") kmer-count -k 31 -t $threads -q --histo $(q "$dir/seqfuse.histo") $(q "$f")" \
    "$jf" "cmp $(q "$dir/j.histo") $(q "$dir/seqfuse.histo")" \
    "$desc, k=31 canonical, histogram; $threads threads"
}

case_kmer_count() {
  [ -n "$(find_bin seqfuse)" ] || { skip "seqfuse is not built"; return 0; }
  need_tool kmc kmc_tools jellyfish awk cmp || return 0
  prepare_kmer_reads || return 0
  kmer_case kmer-count "$kmer_reads" \
    "$(($(wc -l <"$kmer_reads") / 4)) E. coli reads x 150 bp, 1% subst., plain $(($(wc -c <"$kmer_reads") / 1000000)) MB"
}

case_kmer_count_gzip() {
  [ -n "$(find_bin seqfuse)" ] || { skip "seqfuse is not built"; return 0; }
  need_tool kmc kmc_tools jellyfish awk cmp gzip || return 0
  prepare_kmer_reads || return 0
  [ -f "$kmer_reads.gz" ] || gzip -6 -c "$kmer_reads" >"$kmer_reads.gz"
  kmer_case kmer-count-gzip "$kmer_reads.gz" \
    "$(($(wc -l <"$kmer_reads") / 4)) E. coli reads x 150 bp, 1% subst., gzip -6 $(($(wc -c <"$kmer_reads.gz") / 1000000)) MB"
}

# The CPU engine (--device cpu) against KMC at the same thread count.
case_kmer_count_cpu() {
  local sf threads dir
  sf=$(find_bin seqfuse)
  [ -n "$sf" ] || { skip "seqfuse is not built"; return 0; }
  need_tool kmc kmc_tools awk cmp || return 0
  prepare_kmer_reads || return 0
  threads=$(nproc)
  dir=$(dirname "$kmer_reads")/kmer-count-cpu
  mkdir -p "$dir"
  runs=3 warmup=1 compare kmer-count-cpu-vs-kmc \
    "$(q "$sf") kmer-count --device cpu -k 31 -t $threads -q --histo $(q "$dir/seqfuse.histo") $(q "$kmer_reads")" \
    "$(kmc_command "$dir" "$kmer_reads" "$threads")" \
    "awk '\$2 > 0' $(q "$dir/kmc.histo") | tr '\t' ' ' | cmp - $(q "$dir/seqfuse.histo")" \
    "$(($(wc -l <"$kmer_reads") / 4)) E. coli reads x 150 bp, 1% subst., plain; seqfuse on the CPU (--device cpu), k=31 canonical, histogram; $threads threads"
}

# fastq-trim on the CPU against fastp 0.23.2, fastp's defaults (adapter
# detection, quality and length filters), gzip in and out, both on all the
# machine's threads (fastp takes at most 16). Check: the decompressed reads
# are identical.
case_fastq_trim_cpu() {
  local sf threads dir
  sf=$(find_bin seqfuse)
  [ -n "$sf" ] || { skip "seqfuse is not built"; return 0; }
  need_tool fastp cmp || return 0
  prepare_fastq || return 0
  threads=$(nproc)
  dir="$work/fastq-trim"
  mkdir -p "$dir"
  runs=3 warmup=1 compare fastq-trim-cpu-vs-fastp \
    "$(q "$sf") fastq-trim --device cpu --quiet -w $threads -i $(q "$fastq_dir/reads.fq.gz") -o $(q "$dir/seqfuse.fq.gz") -j $(q "$dir/seqfuse.json") -h $(q "$dir/seqfuse.html")" \
    "fastp -w $((threads < 16 ? threads : 16)) -i $(q "$fastq_dir/reads.fq.gz") -o $(q "$dir/fastp.fq.gz") -j $(q "$dir/fastp.json") -h $(q "$dir/fastp.html")" \
    "cmp <(gzip -dc $(q "$dir/fastp.fq.gz")) <(gzip -dc $(q "$dir/seqfuse.fq.gz"))" \
    "$(fastq_desc gz); fastp's defaults, gzip output; $threads threads"
}

# DNA pairs, the issue's workload: 1 M pairs of 150 bp cut from the lambda
# genome of bowtie2-examples (100 K with --quick), each target a copy of its
# query's window shifted by up to 3 bases, with 3 substitutions and a 1-3
# base insertion or deletion in most pairs (awk, fixed seed). NW and SW,
# DNA 2/-3, gaps 5/2; seqfuse --pairs score-only and with --traceback.
# parasail_aligner has no pairs mode: it aligns the first sqrt(N) queries
# against the first sqrt(N) targets, the same number of 150 x 150 pairs and
# cells (its striped "sat" kernels for scores, its striped traceback kernels
# with SAM output for --traceback). Checks: seqfuse's CSV on that
# all-against-all equals parasail's (scores, end cells), and the traced
# pairs' scores and end cells equal the score-only run's. Runs are few
# (parasail's NW traceback of 1 M pairs takes about 14 s on 16 threads), so
# the peer's time stays near a minute for the case.
# DNA_PAIRS (default 1000000) pairs of DNA_PAIR_LENGTH (default 150) bp;
# DNA_PAIRS_CIGAR=0 skips the traceback timings, DNA_PAIRS_RUNS (default 3)
# sets the timed runs (one warm-up when above 1).
case_dna_pairs() {
  local sf lambda dir pairs=${DNA_PAIRS:-1000000} len=${DNA_PAIR_LENGTH:-150} side threads
  local pair_runs=${DNA_PAIRS_RUNS:-3} pair_warmup=1
  ((pair_runs > 1)) || pair_warmup=0
  sf=$(find_bin seqfuse)
  [ -n "$sf" ] || { skip "seqfuse is not built"; return 0; }
  need_tool parasail_aligner awk gzip sort cmp cut || return 0
  lambda="$seeds/lambda_virus.fa.gz"
  if [ ! -f "$lambda" ] && command -v dpkg >/dev/null; then
    lambda=$(dpkg -L bowtie2-examples 2>/dev/null | grep -m1 '/lambda_virus.fa.gz$') || true
  fi
  [ -n "$lambda" ] && [ -f "$lambda" ] ||
    { skip "no lambda_virus.fa.gz in '$seeds' and bowtie2-examples is not installed"; return 0; }
  ((quick)) && pairs=100000
  side=$(awk -v n="$pairs" 'BEGIN { s = int(sqrt(n)); while (s * s < n) s++; print s }')
  threads=$(nproc)
  dir="$work/dna_pairs"
  mkdir -p "$dir"
  if [ "$(cat "$dir/stamp" 2>/dev/null)" != "$pairs x $len" ]; then
    log "making $pairs pairs of $len bp from $lambda -> $dir"
    bash "$repo/scripts/make-dna-pairs.sh" "$pairs" "$len" "$lambda" "$dir"
    awk -v n=$((side * 2)) 'NR <= n' "$dir/q.fa" >"$dir/q_side.fa"
    awk -v n=$((side * 2)) 'NR <= n' "$dir/t.fa" >"$dir/t_side.fa"
    echo "$pairs x $len" >"$dir/stamp"
  fi
  local desc="$pairs lambda pairs x $len bp (bowtie2-examples; parasail: $side x $side all-against-all, same cells), DNA 2/-3 gaps 5/2, $threads threads"
  local mode sub parasail_args
  for mode in sw nw; do
    sub=align-$mode
    parasail_args="-x -d -M 2 -X 3 -o 5 -e 2 -t $threads -q $(q "$dir/q_side.fa") -f $(q "$dir/t_side.fa")"
    runs=$pair_runs warmup=$pair_warmup compare "dna-pairs-$len-$mode" \
      "$(q "$sf") $sub $(q "$dir/q.fa") $(q "$dir/t.fa") --pairs --match 2 --mismatch -3 --gap-open 5 --gap-extend 2 -t $threads -q -o $(q "$dir/$mode.tsv")" \
      "parasail_aligner $parasail_args -a ${mode}_striped_sat -g $(q "$dir/parasail_$mode.csv") <&- >/dev/null" \
      "$(q "$sf") $sub $(q "$dir/q_side.fa") $(q "$dir/t_side.fa") --top 0 --format csv --match 2 --mismatch -3 --gap-open 5 --gap-extend 2 -t $threads -q | sort > $(q "$dir/a_$mode.csv") && sort $(q "$dir/parasail_$mode.csv") > $(q "$dir/b_$mode.csv") && cmp $(q "$dir/a_$mode.csv") $(q "$dir/b_$mode.csv")" \
      "$desc, $mode score-only"
    [ "${DNA_PAIRS_CIGAR:-1}" = 0 ] && continue
    runs=2 warmup=0 compare "dna-pairs-$len-$mode-traceback" \
      "$(q "$sf") $sub $(q "$dir/q.fa") $(q "$dir/t.fa") --pairs --traceback --match 2 --mismatch -3 --gap-open 5 --gap-extend 2 -t $threads -q -o $(q "$dir/${mode}_traced.tsv")" \
      "parasail_aligner $parasail_args -a ${mode}_trace_striped_sat -O SAM -g $(q "$dir/parasail_$mode.sam") <&- >/dev/null" \
      "cut -f1-7 $(q "$dir/${mode}_traced.tsv") | cmp - <(cut -f1-7 $(q "$dir/$mode.tsv"))" \
      "$desc, $mode with CIGAR"
    "$sf" "$sub" "$dir/q.fa" "$dir/t.fa" --pairs --traceback --match 2 --mismatch -3 --gap-open 5 \
      --gap-extend 2 -t "$threads" -o /dev/null 2>&1 | tail -1 | sed 's/^/bench: /'
  done
}

parse_args() {
  while (($#)); do
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --quick) quick=1; shift ;;
      --bin|--seeds|--work|--results|--results-dir|--json-dir|--only|--runs|--warmup)
        (($# >= 2)) || die "$1 needs a value"
        case "$1" in
          --bin) bin=$2 ;;
          --seeds) seeds=$2 ;;
          --work) work=$2 ;;
          --only) only+=("$2") ;;
          --runs) runs=$2 ;;
          --warmup) warmup=$2 ;;
          *) compare_args+=("$1" "$2") ;;
        esac
        shift 2 ;;
      *) usage >&2; die "unknown argument '$1'" ;;
    esac
  done
  if [ -z "$seeds" ]; then
    seeds="$repo/bench/work/seeds"
    [ -f "$repo/bundle/data/shovill_R1.fq.gz" ] && seeds="$repo/bundle/data"
  fi
  if [ -z "$work" ]; then
    work="${TMPDIR:-/tmp}/seqfuse-bench"
    [ -d "$repo/bench/work/seeds" ] && work="$repo/bench/work"
  fi
  ((quick)) && { runs=3; warmup=1; }
  local name c
  for name in ${only[@]+"${only[@]}"}; do
    for c in "${CASES[@]}"; do [ "$c" = "$name" ] && continue 2; done
    die "no case named '$name' (cases: ${CASES[*]})"
  done
}

main() {
  parse_args "$@"
  command -v hyperfine >/dev/null || die "hyperfine is not on PATH (bundle/peers/bin?)"
  local sf name rc
  sf=$(find_bin seqfuse)
  build="seqfuse unknown version"
  if [ -n "$sf" ]; then build=$("$sf" --version 2>/dev/null | head -n1) || true; fi
  [ -f "$repo/bundle/BUILD_INFO" ] &&
    build+=" ($(sed -n 's/^commit=//p' "$repo/bundle/BUILD_INFO"))"
  log "$((${#only[@]} ? ${#only[@]} : ${#CASES[@]})) case(s); seeds $seeds; work $work; $runs runs, $warmup warm-up; $build"
  for name in "${CASES[@]}"; do
    if ((${#only[@]})) && ! printf '%s\n' "${only[@]}" | grep -qxF "$name"; then continue; fi
    skip_reason=""
    log "case $name"
    set +e
    "case_$name"
    rc=$?
    set -e
    if [ -n "$skip_reason" ]; then
      log "case $name: SKIPPED: $skip_reason"
      skipped+=("$name")
    elif ((rc)); then
      log "case $name: FAILED (exit $rc)"
      failed+=("$name")
    else
      passed+=("$name")
    fi
  done
  log "done: ${#passed[@]} ok, ${#failed[@]} failed${failed[*]:+ (${failed[*]})}, ${#skipped[@]} skipped${skipped[*]:+ (${skipped[*]})}"
  ((${#failed[@]} == 0))
}

main "$@"
