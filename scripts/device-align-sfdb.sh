#!/usr/bin/env bash
# Issue #18 part 1 on the GPU machine: the search database (align-db, .sfdb)
# against the FASTA it was built from, on mmseqs2-examples' 20,000 proteins
# repeated SFDB_COPIES times (default 200: 1.81 G residues, 4 M targets).
#   1. `seqfuse align-db DB.fasta -o DB.sfdb`, timed once (and its size);
#   2. the search of SFDB_QUERIES (default 10) X-free queries (SW,
#      BLOSUM62 11/1, top 10) from the FASTA and from the .sfdb, one
#      warm-up each, then RUNS (default 3) timed runs each, interleaved;
#      medians;
#   3. checks: every .sfdb output equals the FASTA output byte for byte, and
#      so does one run of each cut into SFDB_PARTS parts (default 3;
#      SEQFUSE_ALIGN_PART_RESIDUES, the parts path) and, with SFDB_DB_PART
#      (default 2/3), a --db-part run of each.
# Writes $OUT/align-sfdb.md (the table) and $OUT/align-sfdb-trace.txt (one
# SEQFUSE_TRACE run of each, to see where the time goes).
# Needs bundle/ with --data (mmseqs_DB.fasta.gz, mmseqs_QUERY.fasta.gz):
#   DEVICE_EXTRA=scripts/device-align-sfdb.sh bash scripts/device-run.sh --no-cpu-tests
# DRY=1: a rehearsal on the CPU (--device cpu, SFDB_COPIES default 1,
# SEQFUSE_BIN default build/bin/seqfuse, SFDB_DATA the folder holding
# DB.fasta.gz and QUERY.fasta.gz, default /usr/share/doc/mmseqs2/example-data).
set -uo pipefail
repo=$PWD
dry=${DRY:-0}
if [ "$dry" = 1 ]; then
  sf=${SEQFUSE_BIN:-$repo/build/bin/seqfuse}
  data=${SFDB_DATA:-/usr/share/doc/mmseqs2/example-data}
  db_gz=$data/DB.fasta.gz query_gz=$data/QUERY.fasta.gz
  copies=${SFDB_COPIES:-1} device=cpu gpu_name="dry run"
else
  # shellcheck source=scripts/device-env.sh
  source scripts/device-env.sh
  prepare_bundle >/dev/null
  sf=${SEQFUSE_BIN:-$repo/bundle/bin/seqfuse}
  db_gz=$repo/bundle/data/mmseqs_DB.fasta.gz query_gz=$repo/bundle/data/mmseqs_QUERY.fasta.gz
  copies=${SFDB_COPIES:-200} device=gpu
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
fi
runs=${RUNS:-3}
queries=${SFDB_QUERIES:-10}
parts=${SFDB_PARTS:-3}
db_part=${SFDB_DB_PART:-2/3}
OUT=${OUT:-$repo/device-out}
work=${SFDB_WORK:-/tmp/seqfuse-sfdb}
mkdir -p "$OUT" "$work"
threads=$(nproc)
table=$OUT/align-sfdb.md
trace_log=$OUT/align-sfdb-trace.txt
: >"$trace_log"
failures=0

now_ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%d\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
seconds() { awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1000 }'; }

gzip -dc "$db_gz" >"$work/DB1.fasta" || exit 1
# Queries without X (an X scores as a mismatch everywhere; the peers'
# benchmarks leave such queries out), one line each.
gzip -dc "$query_gz" |
  awk -v q="$queries" '
    /^>/ { if (name != "" && seq !~ /X/ && ++n <= q) print name "\n" seq; name = $0; seq = ""; next }
    { seq = seq $0 }
    END { if (name != "" && seq !~ /X/ && ++n <= q) print name "\n" seq }' >"$work/Q.fasta"
for ((i = 0; i < copies; i++)); do cat "$work/DB1.fasta"; done >"$work/DB.fasta"
residues=$(($(grep -v '^>' "$work/DB1.fasta" | tr -d '\n' | wc -c) * copies))
targets=$(($(grep -c '^>' "$work/DB1.fasta") * copies))
echo "device-align-sfdb: $copies copies, $targets targets, $residues residues," \
  "$(grep -c '^>' "$work/Q.fasta") queries, $threads threads, $device ($gpu_name)"

# 1. The database, built once.
rm -f "$work/DB.sfdb"
t0=$(now_ms)
"$sf" align-db "$work/DB.fasta" -o "$work/DB.sfdb" -t "$threads" 2>>"$trace_log" || exit 1
build_ms=$(($(now_ms) - t0))
echo "align-db: $(seconds "$build_ms") s, $(stat -c %s "$work/DB.sfdb") bytes"

search() {  # search TARGET OUT [extra args]: the timed search, ms on stdout
  local target=$1 out=$2
  shift 2
  local t0
  t0=$(now_ms)
  "$sf" align-sw "$work/Q.fasta" "$target" --top 10 -t "$threads" --device "$device" -q \
    -o "$out" "$@" || { echo "search of $target failed" >&2; return 1; }
  echo $(($(now_ms) - t0))
}
same() {  # same A B WHAT
  if cmp -s "$1" "$2"; then
    echo "check: $3: identical"
  else
    echo "check: $3: OUTPUT DIFFERS"
    failures=$((failures + 1))
  fi
}

# 2. Timed searches, interleaved after one warm-up each (page cache, driver).
search "$work/DB.fasta" "$work/fasta.tsv" >/dev/null || exit 1
search "$work/DB.sfdb" "$work/sfdb.tsv" >/dev/null || exit 1
same "$work/fasta.tsv" "$work/sfdb.tsv" "search from .sfdb vs FASTA"
fasta_ms=() sfdb_ms=()
for ((r = 0; r < runs; r++)); do
  ms=$(search "$work/DB.fasta" "$work/fasta-$r.tsv") || exit 1
  fasta_ms+=("$ms")
  ms=$(search "$work/DB.sfdb" "$work/sfdb-$r.tsv") || exit 1
  sfdb_ms+=("$ms")
  same "$work/fasta.tsv" "$work/sfdb-$r.tsv" "run $((r + 1)) from .sfdb"
done
fasta_med=$(printf '%s\n' "${fasta_ms[@]}" | median)
sfdb_med=$(printf '%s\n' "${sfdb_ms[@]}" | median)
for target in DB.fasta DB.sfdb; do
  echo "== SEQFUSE_TRACE search of $target" >>"$trace_log"
  SEQFUSE_TRACE=1 "$sf" align-sw "$work/Q.fasta" "$work/$target" --top 10 -t "$threads" \
    --device "$device" -o /dev/null 2>>"$trace_log"
done

# 3. Parts and --db-part from both, byte for byte.
part_residues=$(((residues + parts - 1) / parts))
SEQFUSE_ALIGN_PART_RESIDUES=$part_residues search "$work/DB.sfdb" "$work/sfdb-parts.tsv" >/dev/null
same "$work/fasta.tsv" "$work/sfdb-parts.tsv" "$parts parts from .sfdb vs resident FASTA"
search "$work/DB.fasta" "$work/fasta-part.tsv" --db-part "$db_part" >/dev/null
search "$work/DB.sfdb" "$work/sfdb-part.tsv" --db-part "$db_part" >/dev/null
same "$work/fasta-part.tsv" "$work/sfdb-part.tsv" "--db-part $db_part from .sfdb vs FASTA"

{
  echo "# Search database (.sfdb) vs FASTA (issue 18, part 1)"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ), $device ($gpu_name), $threads threads"
  echo "- database: mmseqs2-examples DB x $copies = $targets targets, $residues residues;" \
    "$queries X-free queries, align-sw top 10"
  echo "- command: \`${DRY:+DRY=$DRY }bash scripts/device-align-sfdb.sh\`, RUNS=$runs"
  echo
  echo "| step | runs | median s | runs (s) |"
  echo "|---|---|---|---|"
  echo "| align-db (once) | 1 | $(seconds "$build_ms") | $(seconds "$build_ms") |"
  echo "| search from FASTA | $runs | $(seconds "$fasta_med") |" \
    "$(for v in "${fasta_ms[@]}"; do printf '%s ' "$(seconds "$v")"; done)|"
  echo "| search from .sfdb | $runs | $(seconds "$sfdb_med") |" \
    "$(for v in "${sfdb_ms[@]}"; do printf '%s ' "$(seconds "$v")"; done)|"
  echo
  echo "Saving per search: $(seconds $((fasta_med - sfdb_med))) s; align-db pays for itself" \
    "after $(awk -v b="$build_ms" -v s="$((fasta_med - sfdb_med))" 'BEGIN { if (s > 0) printf "%.1f", b / s; else print "no" }') searches."
  echo "Database file: $(stat -c %s "$work/DB.sfdb") bytes (FASTA: $(stat -c %s "$work/DB.fasta"))."
  echo
  echo "Output checks failed: $failures."
} >"$table"
cat "$table"
[ "$failures" -eq 0 ]
