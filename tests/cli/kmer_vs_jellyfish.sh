#!/usr/bin/env bash
# seqfuse kmer-count against Jellyfish 2 (the peer it replaces): the histogram
# (`jellyfish histo`), the sorted dump (`jellyfish dump -c | sort`) and the
# statistics of the saved database (`jellyfish stats`) must be byte-identical.
#   - k = 15, 21, 31, 45, 63 on real reads: the first 20,000 of
#     shovill-examples' R1 reads (150 bp), bowtie2-examples' reads_1 (10,000,
#     up to 354 bp) and its first 1,500 long reads (up to 2.5 kbp); seqfuse
#     reads them gzipped, Jellyfish decompressed. (Subsets keep this test near
#     30 s: Jellyfish and sorting its dump take most of the time.)
#   - k = 1, 2, 4, 15, 21, 31, 32, 33, 45, 63 on the edge inputs in
#     tests/data/kmer (N runs, IUPAC letters, lowercase, reads shorter than k,
#     palindromes, homopolymers, CRLF FASTQ, wrapped FASTA);
#   - the saved database read back (dump, histo with -l/-h/-i, -L/-U as
#     jellyfish dump -L/-U, stats with -L/-U and of a database counted with -L), --no-canonical as jellyfish count without -C,
#     a -m small enough to spill runs to disk, and stdin input.
# Jellyfish missing is a failure, not a skip: scripts/setup.sh --peers
# installs it, and the data packages come with scripts/setup.sh --data.
# Usage: kmer_vs_jellyfish.sh SEQFUSE_BINARY TESTS_DATA_DIR
set -euo pipefail
export LC_ALL=C  # jellyfish dump is in hash order; both sides sorted bytewise
seqfuse=$(realpath "$1")
data=$(realpath "$2")
threads=2

fail() { echo "FAIL: $*"; exit 1; }
command -v jellyfish >/dev/null || fail "jellyfish not found (install it: scripts/setup.sh --peers)"
shovill_r1=/usr/share/doc/shovill-examples/R1.fq.gz
bowtie_reads=/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz
bowtie_long=/usr/share/doc/bowtie2/examples/reads/longreads.fq.gz
for f in "$shovill_r1" "$bowtie_reads" "$bowtie_long"; do
  [ -f "$f" ] || fail "$f missing (install shovill-examples and bowtie2-examples: scripts/setup.sh --data)"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
(zcat "$shovill_r1" || true) | head -n 80000 > shovill_R1.fq
zcat "$bowtie_reads" > bowtie_reads_1.fq
(zcat "$bowtie_long" || true) | head -n 6000 > bowtie_longreads.fq
gzip -1 -c shovill_R1.fq > shovill_R1.fq.gz
gzip -1 -c bowtie_longreads.fq > bowtie_longreads.fq.gz

checks=0
same() {  # same <what> <expected file> <got file>
  cmp -s "$2" "$3" || { diff "$2" "$3" | head -5; fail "$1: seqfuse differs from jellyfish"; }
  checks=$((checks + 1))
}

# jellyfish_counts <k> <canonical: -C or ""> <inputs...>: j.histo, j.dump and j.stats
jellyfish_counts() {
  local k=$1 canonical=$2
  shift 2
  jellyfish count $canonical -m "$k" -s 10M -t $threads -o j.jf "$@"
  jellyfish histo j.jf > j.histo
  jellyfish dump -c j.jf | sort > j.dump
  jellyfish stats j.jf > j.stats
}

# compare <name> <k> <jellyfish inputs> -- <seqfuse inputs>
compare() {
  local name=$1 k=$2 jf_inputs=() sf_inputs=()
  shift 2
  while [ "$1" != "--" ]; do jf_inputs+=("$1"); shift; done
  shift
  sf_inputs=("$@")
  jellyfish_counts "$k" -C "${jf_inputs[@]}"
  "$seqfuse" kmer-count -q -k "$k" -t $threads "${sf_inputs[@]}" --histo s.histo --dump s.dump \
    -o s.kdb
  "$seqfuse" kmer-count stats -q s.kdb > s.stats
  same "$name k=$k histo" j.histo s.histo
  same "$name k=$k dump" j.dump s.dump
  same "$name k=$k stats" j.stats s.stats
  echo "ok: $name k=$k ($(wc -l < s.dump) distinct k-mers)"
}

for k in 15 21 31 45 63; do
  compare shovill-R1 $k shovill_R1.fq -- shovill_R1.fq.gz
  [ $k -eq 31 ] && mv j.jf r1_k31.jf && mv j.histo r1_k31.histo && mv j.dump r1_k31.dump
  [ $k -eq 63 ] && mv j.dump r1_k63.dump
  compare bowtie2-reads $k bowtie_reads_1.fq bowtie_longreads.fq -- "$bowtie_reads" \
    bowtie_longreads.fq.gz
done
for k in 1 2 4 15 21 31 32 33 45 63; do
  compare edge.fa $k "$data/kmer/edge.fa" -- "$data/kmer/edge.fa"
  compare edge.fq $k "$data/kmer/edge.fq" -- "$data/kmer/edge.fq"
done

# The saved database, read back; jellyfish's histo options and dump filters
# (against the shovill k=31 counts above).
k=31
mv r1_k31.jf j.jf && mv r1_k31.histo j.histo && mv r1_k31.dump j.dump
"$seqfuse" kmer-count -q -k $k -t $threads shovill_R1.fq.gz -o r1.kdb
"$seqfuse" kmer-count dump -q r1.kdb -o db.dump
same "database dump" j.dump db.dump
"$seqfuse" kmer-count histo -q r1.kdb > db.histo
same "database histo" j.histo db.histo
jellyfish histo -l 3 -h 40 -i 4 j.jf > j.histo_opts
"$seqfuse" kmer-count histo -q r1.kdb --low 3 --high 40 --increment 4 > db.histo_opts
same "histo -l 3 -h 40 -i 4" j.histo_opts db.histo_opts
jellyfish histo -f -h 20 j.jf > j.histo_full
"$seqfuse" kmer-count histo -q r1.kdb --full --high 20 > db.histo_full
same "histo -f -h 20" j.histo_full db.histo_full
jellyfish dump -c -L 2 -U 9 j.jf | sort > j.dump_filtered
"$seqfuse" kmer-count dump -q -L 2 -U 9 r1.kdb > db.dump_filtered
same "dump -L 2 -U 9" j.dump_filtered db.dump_filtered
"$seqfuse" kmer-count -q -k $k -t $threads -L 2 -U 9 shovill_R1.fq.gz --dump count.dump_filtered
same "count -L 2 -U 9" j.dump_filtered count.dump_filtered
"$seqfuse" kmer-count stats -q r1.kdb -o db.stats
jellyfish stats j.jf > j.stats
same "database stats" j.stats db.stats
jellyfish stats -L 2 -U 9 j.jf > j.stats_filtered
"$seqfuse" kmer-count stats -q -L 2 -U 9 r1.kdb > db.stats_filtered
same "stats -L 2 -U 9" j.stats_filtered db.stats_filtered
jellyfish count -C -m $k -s 10M -t $threads -L 3 -o j.L3.jf shovill_R1.fq
jellyfish stats j.L3.jf > j.stats_L3
"$seqfuse" kmer-count -q -k $k -t $threads -L 3 shovill_R1.fq.gz -o r1_L3.kdb
"$seqfuse" kmer-count stats -q r1_L3.kdb > db.stats_L3
same "stats of a database counted with -L 3" j.stats_L3 db.stats_L3
echo "ok: database dump, histo (-l/-h/-i/-f), stats and -L/-U filters"

# Stdin input; a memory cap small enough that runs spill to disk (k=63: two
# words a k-mer, so -m 0.05 holds fewer of them).
"$seqfuse" kmer-count -q -k $k -t $threads - --dump s.dump < shovill_R1.fq
same "stdin input" j.dump s.dump
"$seqfuse" kmer-count -k 63 -t $threads -m 0.05 --tmp-dir . shovill_R1.fq.gz --dump s.dump 2> spill.log
grep -q "spilled" spill.log || fail "-m 0.05 did not spill: $(cat spill.log)"
same "spilled runs" r1_k63.dump s.dump
[ -z "$(ls -A | grep -v -E '^(j\.|s\.|db\.|r1|count\.|spill\.log|.*\.fq(\.gz)?$)')" ] ||
  fail "spilling left files: $(ls -A)"
echo "ok: spilled runs ($(grep -o '[0-9]* runs ([0-9]* spilled)' spill.log)) and stdin"

# Both strands counted apart: jellyfish count without -C.
for k in 21 32; do
  jellyfish_counts $k "" bowtie_reads_1.fq
  "$seqfuse" kmer-count -q -k $k -t $threads --no-canonical "$bowtie_reads" --histo s.histo \
    --dump s.dump -o s.kdb
  "$seqfuse" kmer-count stats -q s.kdb > s.stats
  same "--no-canonical k=$k histo" j.histo s.histo
  same "--no-canonical k=$k dump" j.dump s.dump
  same "--no-canonical k=$k stats" j.stats s.stats
done
echo "ok: --no-canonical"

echo "kmer vs jellyfish: $checks comparisons, all identical"
