#!/usr/bin/env bash
# A search split with --db-part i/N and joined by align-merge gives the
# bytes of one whole-database run: align-sw and align-nw, every output
# format, N = 1, 2, 3 and more parts than targets (empty parts), --top
# values that cut through ties (the targets are doubled, so every score
# comes twice, in different parts), proteins and DNA, a gzip output.
# Usage: align_merge_parts.sh SEQFUSE TESTS_DATA_DIR
set -u
seqfuse=$(realpath "$1")
data=$(realpath "$2")/align
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# Targets twice over (the copies renamed), so ties span parts.
for set in proteins lambda; do
  { cat "$data/${set}_targets.fa"; sed 's/^>/>copy_/' "$data/${set}_targets.fa"; } > "${set}_db.fa"
done
head -n 12 "$data/proteins_queries.fa" > proteins_q.fa
head -n 20 "$data/lambda_queries.fa" > lambda_q.fa

pass=0 fail=0
check() {  # check <what> <expected> <got>
  if cmp -s "$2" "$3"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $1"; diff "$2" "$3" | head -5
  fi
}

for set in proteins lambda; do
  for mode in sw nw; do
    for format in tsv csv sam blast6; do
      for top in 0 1 3; do
        run=("$seqfuse" "align-$mode" "${set}_q.fa" "${set}_db.fa" --format "$format" --top "$top" -q -t 1)
        "${run[@]}" > whole || { fail=$((fail + 1)); echo "FAIL: ${run[*]}"; continue; }
        for parts in 1 2 3; do
          names=()
          for ((i = 1; i <= parts; i++)); do
            "${run[@]}" --db-part "$i/$parts" > "part$i" 2>/dev/null || echo "FAIL: part $i/$parts"
            names+=("part$i")
          done
          "$seqfuse" align-merge --top "$top" -q "${names[@]}" > merged
          check "$set align-$mode --format $format --top $top, $parts parts" whole merged
          rm -f part* merged
        done
      done
    done
  done
done

# More parts than targets: the empty parts hold headers (or nothing) only.
head -n 6 "$data/proteins_targets.fa" > small_db.fa
for format in tsv csv sam blast6; do
  run=("$seqfuse" align-nw proteins_q.fa small_db.fa --format "$format" --top 2 -q)
  "${run[@]}" > whole
  for i in 1 2 3 4 5; do "${run[@]}" --db-part "$i/5" > "part$i" 2>/dev/null; done
  "$seqfuse" align-merge --top 2 -q part1 part2 part3 part4 part5 > merged
  check "3 targets in 5 parts, $format" whole merged
  rm -f part* merged
done

# tsv with --traceback (13 columns).
run=("$seqfuse" align-nw lambda_q.fa lambda_db.fa --traceback --top 3 -q)
"${run[@]}" > whole
"${run[@]}" --db-part 1/2 > part1
"${run[@]}" --db-part 2/2 > part2
"$seqfuse" align-merge --top 3 -q part1 part2 > merged
check "tsv --traceback, 2 parts" whole merged
rm -f part* merged

# A part read from a regular file (two passes), gzip (two passes through
# the decompressor) and stdin (read whole, then cut) is the same part.
gzip -c proteins_db.fa > proteins_db.fa.gz
for i in 1 2 3; do
  "$seqfuse" align-sw proteins_q.fa proteins_db.fa --db-part "$i/3" --format csv -q > file_part
  "$seqfuse" align-sw proteins_q.fa proteins_db.fa.gz --db-part "$i/3" --format csv -q > gz_part
  "$seqfuse" align-sw proteins_q.fa - --db-part "$i/3" --format csv -q < proteins_db.fa > stdin_part
  check "part $i/3 from a gzip TARGET" file_part gz_part
  check "part $i/3 from stdin" file_part stdin_part
done

# --format given, a .gz output (BGZF) and gzip parts read back.
run=("$seqfuse" align-sw proteins_q.fa proteins_db.fa --top 2 -q)
"${run[@]}" > whole
"${run[@]}" --db-part 1/2 | gzip -c > p1.tsv.gz
"${run[@]}" --db-part 2/2 > p2.tsv
"$seqfuse" align-merge --top 2 --format tsv -q p1.tsv.gz p2.tsv -o merged.tsv.gz
zcat merged.tsv.gz > merged
check "gzip part in, .gz out" whole merged
# A smaller --top than the parts': the whole run's top 1.
"$seqfuse" align-sw proteins_q.fa proteins_db.fa --top 1 -q > whole
"$seqfuse" align-merge --top 1 -q p1.tsv.gz p2.tsv > merged
check "merge --top 1 of parts kept with --top 2" whole merged

echo "align merge: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
