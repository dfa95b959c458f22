#!/usr/bin/env bash
# Writes PAIRS DNA pairs of LEN bp to OUTDIR/q.fa and OUTDIR/t.fa: record k
# of q.fa is a window of the lambda genome (bowtie2-examples), record k of
# t.fa the same window shifted by up to 3 bp, with 3 substitutions per 150
# bp and, in 70 % of pairs, a 1-3 bp deletion or insertion. Fixed seed, so
# every machine makes the same pairs. Used by bench/run.sh (dna_pairs) and
# scripts/device-align-trace.sh.
# Usage: scripts/make-dna-pairs.sh PAIRS LEN LAMBDA.fa.gz OUTDIR
set -euo pipefail
[ $# -eq 4 ] || { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
pairs=$1 len=$2 lambda=$3 dir=$4
mkdir -p "$dir"
gzip -dc "$lambda" | awk -v pairs="$pairs" -v len="$len" -v q="$dir/q.fa" -v t="$dir/t.fa" '
  /^>/ { next }
  { g = g toupper($0) }
  END {
    srand(20261123); L = length(g)
    for (k = 0; k < pairs; k++) {
      s = 4 + int(rand() * (L - len - 10)); a = substr(g, s, len)
      b = substr(g, s + int(rand() * 7) - 3, len)
      for (x = 0; x < 3 * len / 150; x++) {
        p = 1 + int(rand() * len); b = substr(b, 1, p - 1) substr("ACGT", 1 + int(rand() * 4), 1) substr(b, p + 1)
      }
      r = rand(); p = 1 + int(rand() * (len - 10)); d = 1 + int(rand() * 3)
      if (r < 0.35) b = substr(b, 1, p) substr(b, p + d + 1)
      else if (r < 0.7) b = substr(b, 1, p) substr("GATTACA", 1 + int(rand() * 4), d) substr(b, p + 1)
      printf ">p%d_%d\n%s\n", k, s, a > q
      printf ">p%d_%d_mut\n%s\n", k, s, b > t
    }
  }'
