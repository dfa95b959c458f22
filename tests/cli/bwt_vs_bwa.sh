#!/usr/bin/env bash
# seqfuse bwt against bwa index 0.7.17 (the peer it replaces): the five index
# files (.bwt .sa .pac .ann .amb) must be byte-identical, and bwa mem must
# align reads the same way on either index.
#   - real genomes: the lambda phage (bowtie2-examples), E. coli MG1655
#     (4.6 Mbp, one record) and its 156 assembled contigs (ragout-examples);
#   - tests/data/bwt/multi.fa: records with and without comments, lowercase,
#     N runs and other IUPAC codes (replaced by bwa's pseudo-random bases);
#   - edge texts: one base, one letter repeated, a periodic text, a record
#     over 128 bases (an occurrence block boundary), headers whose comment
#     starts with more blanks (bwa keeps all but the first);
#   - bwa mem with 4,000 of bowtie2-examples' reads on both lambda indexes:
#     the same SAM (the @PG line aside).
# bwa missing is a failure, not a skip: scripts/setup.sh --peers installs it,
# and the data packages come with scripts/setup.sh --data.
# Usage: bwt_vs_bwa.sh SEQFUSE_BINARY TESTS_DATA_DIR
set -euo pipefail
seqfuse=$(realpath "$1")
data=$(realpath "$2")

fail() { echo "FAIL: $*"; exit 1; }
command -v bwa >/dev/null || fail "bwa not found (install it: scripts/setup.sh --peers)"
lambda=/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz
reads=/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz
ecoli=/usr/share/doc/ragout/examples/E.Coli/references/MG1655-K12.fasta.gz
contigs=/usr/share/doc/ragout/examples/E.Coli/mg1655_contigs.fasta.gz
for f in "$lambda" "$reads" "$ecoli" "$contigs"; do
  [ -f "$f" ] || fail "$f is missing (install the examples: scripts/setup.sh --data)"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '>one\nA\n' >"$work/one_base.fa"
{ echo '>same'; printf 'A%.0s' $(seq 1000); echo; } >"$work/one_letter.fa"
{ echo '>periodic some comment'; printf 'ACG%.0s' $(seq 700); echo; } >"$work/periodic.fa"
{ echo '>r1'; printf 'ACGTTGCA%.0s' $(seq 17); echo; echo '>r2'; echo 'GATTACA'; } >"$work/two.fa"
printf '>a  two spaces\nACGT\n>b\t \tx y\tz \nGGNNA\n>c \nTT\n' >"$work/headers.fa"

compared=0
same_index() {  # same_index NAME FASTA: both tools index it, the files compare equal
  local name=$1 fasta=$2 ext
  mkdir -p "$work/bwa" "$work/sf"
  bwa index -p "$work/bwa/$name" "$fasta" 2>"$work/bwa.log" || { cat "$work/bwa.log"; fail "bwa index $name"; }
  "$seqfuse" bwt "$fasta" -p "$work/sf/$name" -q -t 2 || fail "seqfuse bwt $name"
  for ext in bwt sa pac ann amb; do
    cmp -s "$work/bwa/$name.$ext" "$work/sf/$name.$ext" ||
      fail "$name.$ext differs from bwa index's ($(cmp "$work/bwa/$name.$ext" "$work/sf/$name.$ext" 2>&1 | head -1))"
  done
  compared=$((compared + 5))
}

same_index lambda "$lambda"
same_index ecoli "$ecoli"
same_index contigs "$contigs"
same_index multi "$data/bwt/multi.fa"
for name in one_base one_letter periodic two headers; do same_index "$name" "$work/$name.fa"; done

# bwa mem on either lambda index: the same alignments.
gzip -dc "$reads" | awk 'NR <= 16000' >"$work/reads.fq"  # awk reads to the end: no SIGPIPE under pipefail
bwa mem -t 2 "$work/bwa/lambda" "$work/reads.fq" 2>/dev/null | grep -v '^@PG' >"$work/bwa.sam"
bwa mem -t 2 "$work/sf/lambda" "$work/reads.fq" 2>/dev/null | grep -v '^@PG' >"$work/sf.sam"
[ "$(grep -vc '^@' "$work/bwa.sam")" -ge 4000 ] || fail "bwa mem wrote too few records"
cmp -s "$work/bwa.sam" "$work/sf.sam" || fail "bwa mem's SAM differs between the two lambda indexes"

echo "bwt vs bwa: $compared index files identical over $((compared / 5)) references; bwa mem's SAM identical on 4000 reads"
