#!/usr/bin/env bash
# Issue #3's large-database search: mmseqs2-examples' 20,000 proteins
# repeated until the database holds at least 2 G residues (ALIGN_BIGDB_COPIES,
# default 221 copies = 2.0 G residues, 4.4 M targets), searched by the first
# ALIGN_BIGDB_QUERIES (default 10) of its queries, SW, BLOSUM62 11/1, top 10,
# on the GPU, with the phase trace and the summary line (end-to-end and device
# GCUPS). Check: every query's best score equals its best score against one
# copy of the database (searched the same way), and its 10 hits are that
# best target's first copies or other targets tied with it.
# ALIGN_BIGDB_PARTS="N ...": then the same search with the database cut
# into parts of residues / N (SEQFUSE_ALIGN_PART_RESIDUES; 1: resident),
# timed after the default runs; its output must equal theirs byte for byte.
# ALIGN_BIGDB_BASELINE=PATH (another seqfuse build, carried along): the same
# search with it, after ours, same check. Needs bundle/ with --data. Run as device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-align-bigdb.sh bash scripts/device-run.sh --no-cpu-tests
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
sf=bundle/bin/seqfuse
copies=${ALIGN_BIGDB_COPIES:-221}
queries=${ALIGN_BIGDB_QUERIES:-10}
dir=/tmp/seqfuse-bigdb
mkdir -p "$dir"
gzip -dc bundle/data/mmseqs_DB.fasta.gz >"$dir/DB1.fasta" || exit 1
first_records "$queries" bundle/data/mmseqs_QUERY.fasta.gz >"$dir/QUERY.fasta"
t0=$(date +%s%N)
for ((i = 0; i < copies; i++)); do cat "$dir/DB1.fasta"; done >"$dir/DB.fasta"
echo "big DB: $copies copies, $(stat -c %s "$dir/DB.fasta") bytes, written in" \
  "$((($(date +%s%N) - t0) / 1000000)) ms; $(grep -c '^>' "$dir/QUERY.fasta") queries"
threads=$(nproc)
"$sf" align-sw "$dir/QUERY.fasta" "$dir/DB1.fasta" --top 1 -t "$threads" -q -o "$dir/best1.tsv" ||
  exit 1
for run in 1 2; do
  echo "== large-database search, run $run"
  SEQFUSE_TRACE=1 /usr/bin/time -f "wall %e s, max RSS %M KiB" \
    "$sf" align-sw "$dir/QUERY.fasta" "$dir/DB.fasta" -t "$threads" -o "$dir/hits.tsv" 2>&1
done
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
if [ -n "${ALIGN_BIGDB_BASELINE:-}" ]; then
  echo "== large-database search, baseline $ALIGN_BIGDB_BASELINE"
  SEQFUSE_TRACE=1 with_bundle_libs \
    /usr/bin/time -f "wall %e s, max RSS %M KiB" "$ALIGN_BIGDB_BASELINE" align-sw \
    "$dir/QUERY.fasta" "$dir/DB.fasta" -t "$threads" -o "$dir/hits-baseline.tsv" 2>&1
  cmp "$dir/hits.tsv" "$dir/hits-baseline.tsv" && echo "check: baseline output identical" ||
    { echo "check: baseline OUTPUT DIFFERS"; exit 1; }
fi
residues=$(($(grep -v '^>' "$dir/DB1.fasta" | tr -d '\n' | wc -c) * copies))
for parts in ${ALIGN_BIGDB_PARTS:-}; do
  echo "== large-database search, parts of residues / $parts ($residues residues)"
  SEQFUSE_ALIGN_PART_RESIDUES=$(((residues + parts - 1) / parts)) SEQFUSE_TRACE=1 \
    /usr/bin/time -f "wall %e s, max RSS %M KiB" \
    "$sf" align-sw "$dir/QUERY.fasta" "$dir/DB.fasta" -t "$threads" -o "$dir/hits-parts.tsv" 2>&1
  if cmp "$dir/hits.tsv" "$dir/hits-parts.tsv"; then
    echo "check: parts of residues / $parts: output identical to the default run's"
  else
    echo "check: parts of residues / $parts: OUTPUT DIFFERS from the default run's"
    exit 1
  fi
done
# Columns: query target query_len target_len score ... (header first).
awk -F'\t' 'NR == FNR { if (FNR > 1) best[$1] = $5; next }
            FNR > 1 { n[$1]++; if ($5 != best[$1]) bad++ }
            END { for (q in best) if (n[q] != 10) short++
                  printf "check: %d queries, %d hits with a score other than the one-copy best, %d queries without 10 hits\n",
                         length(best), bad + 0, short + 0
                  exit (bad + short > 0) }' "$dir/best1.tsv" "$dir/hits.tsv"
