#!/usr/bin/env bash
# --strand both and SAM that samtools reads (#18 part 3), on real data:
# bowtie2-examples' reads (reads_1 and reads_2: the mates lie on opposite
# strands) against the lambda phage, plus a few reads reversed without
# complement (no good hit: unmapped under --min-score).
#   - samtools quickcheck, view (parses every record: CIGAR against SEQ
#     length, QUAL), sort and index accept the output;
#   - samtools flagstat's counts equal those of the same run in tsv (the
#     other writer): records, primary, secondary, mapped; view -f 16 counts
#     the tsv's reverse-strand hits; some of each kind exist;
#   - a flag-16 line carries the read reverse complemented, its
#     qualities reversed;
#   - parasail_aligner on the reverse-complemented reads gives the scores
#     and end cells of --strand minus (csv, parasail's format).
# Skipped (exit 0 with a note) without samtools or bowtie2-examples.
# Usage: align_strand_sam.sh SEQFUSE
set -u
seqfuse=$(realpath "$1")
reads1=/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz
reads2=/usr/share/doc/bowtie2/examples/reads/reads_2.fq.gz
lambda=/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz
for tool in samtools; do
  command -v $tool > /dev/null || { echo "align_strand_sam: $tool missing (scripts/setup.sh --peers); skipped"; exit 0; }
done
for f in "$reads1" "$reads2" "$lambda"; do
  [ -f "$f" ] || { echo "align_strand_sam: $f missing (scripts/setup.sh --data); skipped"; exit 0; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 60 reads of each mate file (named apart: the mates share names), and 12
# reads reversed (not complemented).
{ zcat "$reads1" | head -n 240 | sed '1~4s/^@/@m1_/'; zcat "$reads2" | head -n 240 | sed '1~4s/^@/@m2_/'
  zcat "$reads1" | sed -n '241,288p' | awk 'NR % 4 == 1 {sub(/^@/, "@rev_")} NR % 4 == 2 || NR % 4 == 0 {
    s = ""; for (i = length($0); i > 0; i--) s = s substr($0, i, 1); $0 = s} {print}'
} > reads.fq
# lambda twice (the copy named apart): every mapped read has a secondary hit
# (a tie, written after the first in target order).
{ zcat "$lambda"; zcat "$lambda" | sed 's/^>/>copy_/'; } > lambda.fa
run() { "$seqfuse" align-sw -q -t 2 reads.fq lambda.fa --strand both --top 3 --min-score 60 "$@"; }
run --format sam -o out.sam || bad "align-sw --format sam failed"
run --format tsv -o out.tsv || bad "align-sw --format tsv failed"

samtools quickcheck -v out.sam || bad "samtools quickcheck"
samtools view -c out.sam > records.txt || bad "samtools view cannot parse every record"
samtools sort -o sorted.bam out.sam 2> sort.err || { bad "samtools sort"; cat sort.err; }
samtools quickcheck sorted.bam && samtools index sorted.bam || bad "sorted BAM or its index"
samtools flagstat out.sam > flagstat.txt || bad "samtools flagstat"

queries=$(awk 'NR % 4 == 1' reads.fq | wc -l)
read -r hits reverse mapped_queries <<< "$(awk -F'\t' 'NR > 1 {n++; if ($NF == "-") r++; q[$1] = 1}
  END {print n + 0, r + 0, length(q)}' out.tsv)"
unmapped=$((queries - mapped_queries))
secondary=$((hits - mapped_queries))
flag() { grep -E "^[0-9]+ \+ 0 $1" flagstat.txt | cut -d' ' -f1; }
expect() {  # expect <what> <got> <wanted>
  [ "$2" = "$3" ] || bad "$1: $2, expected $3"
}
expect "flagstat total" "$(flag 'in total')" $((hits + unmapped))
expect "flagstat primary" "$(flag 'primary$')" "$queries"
expect "flagstat secondary" "$(flag 'secondary')" "$secondary"
expect "flagstat mapped" "$(flag 'mapped \(')" "$hits"
expect "flagstat primary mapped" "$(flag 'primary mapped')" "$mapped_queries"
expect "records" "$(cat records.txt)" $((hits + unmapped))
expect "reverse (FLAG 16)" "$(samtools view -c -f 16 out.sam)" "$reverse"
expect "unmapped (FLAG 4)" "$(samtools view -c -f 4 out.sam)" "$unmapped"
expect "sorted records" "$(samtools view -c sorted.bam)" $((hits + unmapped))
# Not a test that cannot fail: every kind is there.
[ "$reverse" -gt 40 ] && [ "$secondary" -gt 40 ] && [ "$unmapped" -ge 12 ] &&
  [ $((hits - reverse)) -gt 40 ] || bad "too few reverse ($reverse), secondary ($secondary), unmapped ($unmapped) or plus hits"

# A reverse line stores the read reverse complemented, qualities reversed.
awk 'NR % 4 == 1 {n = substr($1, 2)} NR % 4 == 2 {s[n] = $0} NR % 4 == 0 {q[n] = $0}
  END {for (n in s) print n "\t" s[n] "\t" q[n]}' reads.fq | sort > reads.tsv
samtools view -F 4 -f 16 out.sam | cut -f1,10,11 | sort > reverse.tsv
join -t$'\t' reverse.tsv reads.tsv | awk -F'\t' '
  BEGIN {split("ACGTNacgtn", f, ""); split("TGCANtgcan", t, ""); for (i in f) c[f[i]] = t[i]}
  {rc = ""; rq = ""; for (i = length($4); i > 0; i--) {rc = rc c[substr($4, i, 1)]; rq = rq substr($5, i, 1)}
   n++; if (rc != $2 || rq != $3) bad++}
  END {if (bad || n == 0) {print "FAIL: " bad + 0 " of " n + 0 " reverse lines"; exit 1}}' || fail=1

# parasail_aligner on the reverse complements = --strand minus.
if command -v parasail_aligner > /dev/null; then
  # Reads without N: parasail's -M/-X matrix scores N unlike seqfuse's DNA
  # default (a code never matches), on either strand.
  awk 'NR % 4 == 1 {n = substr($1, 2)} NR % 4 == 2 && !/N/ {print ">" n; print}' reads.fq |
    head -n 60 > q.fa
  awk '/^>/ {print; next} {
    s = ""; for (i = length($0); i > 0; i--) { b = substr($0, i, 1)
      s = s (b == "A" ? "T" : b == "C" ? "G" : b == "G" ? "C" : b == "T" ? "A" : b) } print s}' q.fa > q_rc.fa
  zcat "$lambda" > one.fa
  parasail_aligner -x -t 1 -a sw_striped_32 -d -M 2 -X 3 -o 5 -e 2 -q q_rc.fa -f one.fa \
    -g parasail.csv <&- > parasail.log 2>&1 || bad "parasail_aligner failed"
  "$seqfuse" align-sw -q -t 2 q.fa one.fa --strand minus --top 0 --format csv |
    sort -t, -k1,1n -k2,2n > minus.csv
  sort -t, -k1,1n -k2,2n parasail.csv | cut -d, -f1-7 > parasail_sorted.csv
  cmp -s minus.csv parasail_sorted.csv || { bad "--strand minus differs from parasail_aligner on the reverse complements"; diff minus.csv parasail_sorted.csv | head -4; }
fi
[ "$fail" -eq 0 ] && echo "align strand/sam: all checks passed ($hits hits, $reverse reverse, $secondary secondary, $unmapped unmapped)"
exit "$fail"
