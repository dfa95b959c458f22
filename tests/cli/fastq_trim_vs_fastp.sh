#!/usr/bin/env bash
# seqfuse fastq-trim against fastp 0.23.2 (the peer it replaces): every read
# file written (-o/-O, --unpaired1/2, --failed_out, --stdout; .gz outputs
# decompressed) must be byte-identical, and so must the JSON report (its
# "command" line aside). fastp runs with -w 1: its output order is the same
# for any -w, and its insert-size histogram counts every pair only with one
# worker; seqfuse runs on 2 threads.
#   - real reads: adapterremoval-examples (pairs, mixed, interleaved) and the
#     first 20,000 pairs of shovill-examples;
#   - simulated pairs (scripts/make-fastq-trim-reads.py, fixed seeds, 12,000
#     each): adapters read through short inserts (detected by both tools),
#     NextSeq names (poly-G trimming on by itself) with poly-G tails, N runs,
#     poly-A tails, low-quality tails and reads, lengths 1 to 150;
#   - edge reads (lengths 0 to 151, all N, all G, all A, adapter repeats);
#   - fastp's defaults single- and paired-end, and the options: -A, -a,
#     --adapter_fasta, --detect_adapter_for_pe, -f/-t/-F/-T, -b/-B, -5/-3/-r
#     with windows and mean qualities, -g/-G/-x, -y/-Y, -e, -l, --length_limit,
#     -n/-q/-u, -Q/-L, -c with overlap limits, --interleaved_in, --unpaired1/2,
#     --failed_out, --stdin, --stdout, gzip output, -6, --reads_to_process,
#     --fix_mgi_id, --overlapped_out, -D/--dedup, --dup_calc_accuracy,
#     -U with every --umi_loc, --umi_len, --umi_skip, --umi_prefix,
#     --filter_by_index1/2 with --filter_by_index_threshold.
# fastp or the data missing is a failure, not a skip: scripts/setup.sh
# --peers installs fastp (and python3), --data the example packages.
# Usage: fastq_trim_vs_fastp.sh SEQFUSE_BINARY TESTS_DATA_DIR
set -euo pipefail
seqfuse=$(realpath "$1")
fail() { echo "FAIL: $*"; exit 1; }
command -v fastp >/dev/null || fail "fastp not found (install it: scripts/setup.sh --peers)"
command -v python3 >/dev/null || fail "python3 not found (install it: scripts/setup.sh --peers)"
ar=/usr/share/doc/adapterremoval/examples
sv=/usr/share/doc/shovill-examples
for f in "$ar/reads_1.fq.gz" "$ar/reads_2.fq.gz" "$ar/mixed_1.fq.gz" "$ar/mixed_2.fq.gz" \
  "$ar/interleaved.fq.gz" "$ar/reads_q64.fq.gz" "$sv/R1.fq.gz" "$sv/R2.fq.gz" "$sv/trimmomatic.fa"; do
  [ -f "$f" ] || fail "$f is missing (install the examples: scripts/setup.sh --data)"
done
maker=$(dirname "$(realpath "$0")")/../../scripts/make-fastq-trim-reads.py

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$maker" "$work/sim" 12000 7
python3 "$maker" "$work/ns" 12000 11 --nextseq
python3 "$maker" "$work/edge" 400 3 --edge
gzip -dc "$sv/R1.fq.gz" | awk 'NR <= 80000' | gzip -1 >"$work/sv_1.fq.gz"
gzip -dc "$sv/R2.fq.gz" | awk 'NR <= 80000' | gzip -1 >"$work/sv_2.fq.gz"
sim="$work/sim_1.fq $work/sim_2.fq"
ns="$work/ns_1.fq $work/ns_2.fq"
edge="$work/edge_1.fq $work/edge_2.fq"

cases=0 files=0 compare_names=1
# same NAME MODE INPUTS... -- OPTIONS...: MODE is se (one input), pe (two),
# il (one interleaved), pe-gz (gzip outputs), pe-stdout or se-stdin; OPTIONS
# may name extra outputs under @D@/
same() {
  local name=$1 mode=$2 tool d f
  shift 2
  local inputs=()
  while [ "$1" != "--" ]; do inputs+=("$1"); shift; done
  shift
  local opts=("$@")
  for tool in fastp seqfuse; do
    d="$work/$name/$tool"
    mkdir -p "$d"
    local args=("${opts[@]//@D@/$d}")
    local io=(-i "${inputs[0]}" -o "$d/out1.fq" -j "$d/report.json" -h "$d/report.html")
    case $mode in
      pe) io+=(-I "${inputs[1]}" -O "$d/out2.fq") ;;
      pe-gz) io=(-i "${inputs[0]}" -I "${inputs[1]}" -o "$d/out1.fq.gz" -O "$d/out2.fq.gz" -j "$d/report.json" -h "$d/report.html") ;;
      il) io+=(--interleaved_in -O "$d/out2.fq") ;;
      pe-stdout) io=(-i "${inputs[0]}" -I "${inputs[1]}" --stdout -j "$d/report.json" -h "$d/report.html") ;;
      se-stdin) io=(--stdin -o "$d/out1.fq" -j "$d/report.json" -h "$d/report.html") ;;
    esac
    local run=(fastp -w 1)
    [ $tool = seqfuse ] && run=("$seqfuse" fastq-trim -w 2 --quiet)
    if [ $mode = pe-stdout ]; then
      "${run[@]}" "${io[@]}" "${args[@]}" >"$d/stdout.fq" 2>"$d/log" || { cat "$d/log"; fail "$name: $tool failed"; }
    elif [ $mode = se-stdin ]; then
      "${run[@]}" "${io[@]}" "${args[@]}" <"${inputs[0]}" 2>"$d/log" || { cat "$d/log"; fail "$name: $tool failed"; }
    else
      "${run[@]}" "${io[@]}" "${args[@]}" 2>"$d/log" || { cat "$d/log"; fail "$name: $tool failed"; }
    fi
    for f in "$d"/*.gz; do [ -e "$f" ] && gzip -dc "$f" >"${f%.gz}.plain"; done
    grep -v '"command"' "$d/report.json" >"$d/report.nocommand" || true
  done
  for f in "$work/$name/fastp"/*; do
    case $f in *.gz | *.html | *.json | */log) continue ;; esac
    if [ "$compare_names" = 0 ]; then  # every line but the headers
      awk 'NR % 4 != 1' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
      awk 'NR % 4 != 1' "$work/$name/seqfuse/${f##*/}" >"$f.sf" && mv "$f.sf" "$work/$name/seqfuse/${f##*/}"
    fi
    cmp -s "$f" "$work/$name/seqfuse/${f##*/}" ||
      fail "$name: ${f##*/} differs from fastp's ($(cmp "$f" "$work/$name/seqfuse/${f##*/}" 2>&1 | head -1))"
    files=$((files + 1))
  done
  [ -s "$work/$name/fastp/out1.fq" ] || [ -s "$work/$name/fastp/stdout.fq" ] ||
    [ -s "$work/$name/fastp/out1.fq.plain" ] || fail "$name: fastp wrote no reads"
  cases=$((cases + 1))
  rm -rf "${work:?}/$name"
}

# Real reads, fastp's defaults.
same ar_se se "$ar/reads_1.fq.gz" --
same ar_pe pe "$ar/reads_1.fq.gz" "$ar/reads_2.fq.gz" --
same ar_mixed_pe pe "$ar/mixed_1.fq.gz" "$ar/mixed_2.fq.gz" --
same ar_mixed_se se "$ar/mixed_1.fq.gz" --
same ar_interleaved il "$ar/interleaved.fq.gz" --
same ar_interleaved_opts il "$ar/interleaved.fq.gz" -- -c -g -x -y -5 -e 20 --failed_out @D@/failed.fq
same sv_pe_gz pe-gz "$work/sv_1.fq.gz" "$work/sv_2.fq.gz" --
same sv_se se "$work/sv_1.fq.gz" -- -x -3 -M 15 -l 100 -q 16
# Simulated pairs: defaults, adapter detection, poly-G on NextSeq names.
same sim_se se "$work/sim_1.fq" --
same sim_pe pe $sim --
same sim_pe_detect pe $sim -- --detect_adapter_for_pe
same ns_pe pe $ns --
same ns_se_G_x se "$work/ns_1.fq" -- -G -x
same ns_pe_detect pe $ns -- --detect_adapter_for_pe -x --dont_eval_duplication
# Adapters given, from a FASTA, or off. (Without the duplication estimate,
# whose 1 GiB table costs fastp more time than the trimming here.)
same sim_se_A se "$work/sim_1.fq" -- -A --dont_eval_duplication
same sim_pe_a pe $sim -- -a AGATCGGAAGAGCACACGTCTGAACTCCAGTCA --dont_eval_duplication
same sim_se_a se "$work/sim_1.fq" -- -a AGATCGGAAGAGCACACG --dont_eval_duplication
same sim_se_fasta se "$work/sim_1.fq" -- --adapter_fasta "$sv/trimmomatic.fa" --dont_eval_duplication
same sim_pe_fasta pe $sim -- --adapter_fasta "$sv/trimmomatic.fa" -a AGATCGGAAGAGCACACG --dont_eval_duplication
# Fixed trims, windows, tails, filters.
same sim_pe_fixed pe $sim -- -f 3 -t 2 -F 5 -T 1 -b 120 -B 110 --dont_eval_duplication
same sim_se_cut53 se "$work/sim_1.fq" -- -5 -3 -W 5 -M 22 --dont_eval_duplication
same sim_pe_cutr pe $sim -- -r --cut_right_window_size 6 --cut_right_mean_quality 25 -f 2 --dont_eval_duplication
same sim_se_cut_sides se "$work/sim_1.fq" -- -5 -3 -f 4 -t 3 --cut_front_window_size 1 --cut_tail_mean_quality 28 --dont_eval_duplication
same sim_pe_gx pe $sim -- -g -x --poly_x_min_len 8 --poly_g_min_len 12 --dont_eval_duplication
same sim_se_y se "$work/sim_1.fq" -- -y -Y 40 -e 25 --dont_eval_duplication
same sim_pe_lengths pe $sim -- -l 60 --length_limit 140 -n 2 -q 20 -u 30 --dont_eval_duplication
same sim_pe_QL pe $sim -- -Q -L --dont_eval_duplication
same sim_pe_c pe $sim -- -c --overlap_len_require 20 --overlap_diff_limit 3 --overlap_diff_percent_limit 10 --dont_eval_duplication
# Where the reads that fail go.
same sim_se_failed se "$work/sim_1.fq" -- --failed_out @D@/failed.fq -5 -e 30 --dont_eval_duplication
same sim_pe_unpaired pe $sim -- --unpaired1 @D@/u1.fq --unpaired2 @D@/u2.fq --failed_out @D@/failed.fq -e 28 -l 50 --dont_eval_duplication
same sim_pe_unpaired1 pe $sim -- --unpaired1 @D@/u1.fq --failed_out @D@/failed.fq -e 28 -t 60 --dont_eval_duplication
# Edge reads: lengths 0 to 151, all N, all G, all A, adapter repeats.
same edge_se se "$work/edge_1.fq" -- --dont_eval_duplication
same edge_pe_tails pe $edge -- -x -g --poly_x_min_len 1 --poly_g_min_len 1 -y -Y 0 --dont_eval_duplication
same edge_se_cut se "$work/edge_1.fq" -- -5 -3 -W 1 -f 2 -t 1 --dont_eval_duplication
same edge_pe_cutr pe $edge -- -r -W 3 -c -l 0 -a AGATCGGAAGAGCACACG --overlap_len_require 0 --dont_eval_duplication
same edge_se_unfiltered se "$work/edge_1.fq" -- -L -Q -x -a AGATCGGAAGAG --adapter_fasta "$sv/trimmomatic.fa" --failed_out @D@/failed.fq --dont_eval_duplication
same edge_pe_failed pe $edge -- -L -x --failed_out @D@/failed.fq --unpaired1 @D@/u1.fq -b 10 -B 12 --dont_eval_duplication
# Phred+64 input (fastp 0.23.2 converts only the reads it allocates anew,
# not those it recycles, so beyond a few thousand reads it leaves some
# unconverted: compared with fastp on 500 reads, and on the simulated reads
# with their phred+33 originals); the first N reads or pairs.
same ar_q64 se "$ar/reads_q64.fq.gz" -- -6 --dont_eval_duplication
python3 -c 'import sys
for i, line in enumerate(open(sys.argv[1])):
    sys.stdout.write("".join(chr(ord(c) + 31) for c in line[:-1]) + "\n" if i % 4 == 3 else line)' \
  "$work/sim_1.fq" >"$work/sim64_1.fq"
"$seqfuse" fastq-trim --quiet -6 -i "$work/sim64_1.fq" -o "$work/from64.fq" -j '' -h ''
"$seqfuse" fastq-trim --quiet -i "$work/sim_1.fq" -o "$work/from33.fq" -j '' -h ''
cmp -s "$work/from64.fq" "$work/from33.fq" || fail "-6 on phred+64 reads differs from the phred+33 run"
same sim_pe_first pe $sim -- --reads_to_process 2500 --dont_eval_duplication
same ar_interleaved_first il "$ar/interleaved.fq.gz" -- --reads_to_process 123 --dont_eval_duplication
# MGI names; --overlapped_out. With --overlapped_out fastp 0.23.2 gives its
# recycled reads name strings shared with other reads, and writes wrong
# names in -o/-O (a bug): there only the bases and qualities are compared.
same sim_pe_mgi pe $sim -- --fix_mgi_id --failed_out @D@/failed.fq -e 30 --dont_eval_duplication
same edge_pe_overlapped pe $edge -- --overlapped_out @D@/overlapped.fq -x --overlap_len_require 5 --dont_eval_duplication
compare_names=0
same sim_pe_overlapped pe $sim -- --overlapped_out @D@/overlapped.fq --fix_mgi_id --dont_eval_duplication
compare_names=1
# UMIs from the index in the name (NextSeq names), from the reads, per pair.
same ns_se_umi_index1 se "$work/ns_1.fq" -- -U --umi_loc index1 --dont_eval_duplication
same ns_pe_umi_per_index pe $ns -- -U --umi_loc per_index --umi_prefix UMI --fix_mgi_id --dont_eval_duplication
same sim_pe_umi_read1 pe $sim -- -U --umi_loc read1 --umi_len 8 --umi_skip 2 --failed_out @D@/failed.fq -e 28 --dont_eval_duplication
same edge_pe_umi_per_read pe $edge -- -U --umi_loc per_read --umi_len 5 --umi_skip 1 --failed_out @D@/failed.fq -5 -3 --dont_eval_duplication
same ns_pe_umi_index2 pe $ns -- -U --umi_loc index2 --dont_eval_duplication
# Index filters on the NextSeq names' dual indexes (exact and 1 mismatch).
printf 'CGATGT\nTTAGGA\n' >"$work/index1.txt"
printf 'GTCAAG\n' >"$work/index2.txt"
same ns_se_index1 se "$work/ns_1.fq" -- --filter_by_index1 "$work/index1.txt" --filter_by_index_threshold 1 --failed_out @D@/failed.fq --dont_eval_duplication
same ns_pe_index12 pe $ns -- --filter_by_index1 "$work/index1.txt" --filter_by_index2 "$work/index2.txt" -D
# Deduplication: the first copy in input order stays (fastp -w 1's choice).
same sim_se_dedup se "$work/sim_1.fq" -- -D --failed_out @D@/failed.fq
same sv_se_dedup se "$work/sv_1.fq.gz" -- -D --dup_calc_accuracy 2
same sim_pe_dedup pe $sim -- -D --unpaired1 @D@/u1.fq -e 28
# Streams.
same sim_pe_stdout pe-stdout $sim -- --dont_eval_duplication
same sim_se_stdin se-stdin "$work/sim_1.fq" -- -x --dont_eval_duplication

# Any -w gives the same files: 1 and 5 threads on the shovill pairs.
for w in 1 5; do
  "$seqfuse" fastq-trim --quiet -w $w -i "$work/sv_1.fq.gz" -I "$work/sv_2.fq.gz" \
    -o "$work/w$w.1.fq.gz" -O "$work/w$w.2.fq.gz" -j "$work/w$w.json" -h ''
done
for f in 1.fq.gz 2.fq.gz; do
  cmp -s <(gzip -dc "$work/w1.$f") <(gzip -dc "$work/w5.$f") || fail "-w 1 and -w 5 differ ($f)"
done
cmp -s <(grep -v '"command"' "$work/w1.json") <(grep -v '"command"' "$work/w5.json") ||
  fail "-w 1 and -w 5 reports differ"
# A pipe as -i: read once, evaluated as stdin is (fastp --stdin).
fastp -w 1 --stdin -o "$work/fastp_stdin.fq" -j /dev/null -h /dev/null <"$work/sim_1.fq" 2>/dev/null
"$seqfuse" fastq-trim -i <(cat "$work/sim_1.fq") -o "$work/pipe.fq" -j '' -h '' --quiet
cmp -s "$work/fastp_stdin.fq" "$work/pipe.fq" || fail "-i <(pipe) differs from fastp --stdin"

echo "fastq-trim vs fastp: $files files identical over $cases runs"
