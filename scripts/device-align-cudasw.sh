#!/usr/bin/env bash
# seqfuse against CUDASW++4.0 on the big-database search of issue #18, in one
# call on the GPU machine: the 10 X-free mmseqs2-examples queries against its
# 20,000 proteins repeated CUDASW_COPIES times (default 200: 1.81 G
# residues), SW BLOSUM62 11/1, top 10, each tool on its own prebuilt database:
#   seqfuse align-db DB.fasta -o DB.sfdb       vs  makedb DB.fasta db/DB
#   seqfuse align-sw Q.fasta DB.sfdb --top 10  vs  align --query Q.fasta --db db/DB --top 10
# CUDASW++ runs both its default kernels (half2) and --dpx. Searches are
# timed as whole processes, RUNS (default 3) each after a warm-up, interleaved;
# medians. Writes $OUT/align-cudasw[-$CUDASW_TAG].md. CUDASW_QUERIES=all takes
# every query as it is (the 500 x 20,000 search with CUDASW_COPIES=1).
#
# CUDASW++4.0 is built on the development machine from its public source
# (github.com/asbschmidt/CUDASW4 at 37a394c; CUDA 13 needs the .cpp files
# compiled as CUDA and no -lnvToolsExt):
#   make release NVCC_FLAGS="-arch=sm_90 --expt-relaxed-constexpr -rdc=true \
#     --extended-lambda -Xcompiler=-fopenmp" \
#     COMPILE='nvcc $(NVCC_FLAGS) -x cu $(DIALECT) -O3 -c $< -o $@'
# and carried as bundle/peers/cudasw4/{align.xz,makedb} (stripped; align xz'd).
# SEQFUSE_BASELINE=PATH also times an older seqfuse build in the same runs
# (on the same .sfdb) and checks its output is the same bytes;
# SEQFUSE_BIN=PATH times another build in place of bundle/bin/seqfuse.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
work=${CUDASW_WORK:-/tmp/seqfuse-cudasw}
mkdir -p "$work/db"
sf=${SEQFUSE_BIN:-bundle/bin/seqfuse}
peer=bundle/peers/cudasw4
[ -x "$work/align" ] || { xz -dc "$peer/align.xz" >"$work/align" && chmod +x "$work/align"; }
copies=${CUDASW_COPIES:-200}
runs=${RUNS:-3}
threads=$(nproc)
page=$OUT/align-cudasw${CUDASW_TAG:+-$CUDASW_TAG}.md
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", ((NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1000 }'; }
list() { for v in "$@"; do awk -v v="$v" 'BEGIN { printf "%.2f ", v / 1000 }'; done; }

gzip -dc bundle/data/mmseqs_DB.fasta.gz >"$work/DB1.fasta"
if [ "${CUDASW_QUERIES:-10}" = all ]; then
  gzip -dc bundle/data/mmseqs_QUERY.fasta.gz >"$work/Q.fasta"
else
  gzip -dc bundle/data/mmseqs_QUERY.fasta.gz |
    awk '/^>/ { if (name != "" && seq !~ /X/ && ++n <= 10) print name "\n" seq; name = $0; seq = ""; next }
      { seq = seq $0 }' >"$work/Q.fasta"
fi
for ((i = 0; i < copies; i++)); do cat "$work/DB1.fasta"; done >"$work/DB.fasta"
residues=$(($(grep -v '^>' "$work/DB1.fasta" | tr -d '\n' | wc -c) * copies))

t0=$(now_ms)
"$sf" align-db "$work/DB.fasta" -o "$work/DB.sfdb" -t "$threads" -q || exit 1
sfdb_ms=$(($(now_ms) - t0))
t0=$(now_ms)
"$peer/makedb" "$work/DB.fasta" "$work/db/DB" >"$work/makedb.log" 2>&1 || { tail "$work/makedb.log"; exit 1; }
makedb_ms=$(($(now_ms) - t0))

seqfuse_run() { "${1:-$sf}" align-sw "$work/Q.fasta" "$work/DB.sfdb" --top 10 -t "$threads" -q -o "$work/seqfuse${2:-}.tsv"; }
base=${SEQFUSE_BASELINE:-}
cudasw_run() { "$work/align" --query "$work/Q.fasta" --db "$work/db/DB" --top 10 --tsv "$@" --of "$work/cudasw$*.tsv" >/dev/null 2>&1; }
seqfuse_run && cudasw_run && cudasw_run --dpx || exit 1  # warm-ups
[ -z "$base" ] || seqfuse_run "$base" -baseline || exit 1
sf_ms=() half_ms=() dpx_ms=() base_ms=()
for ((r = 0; r < runs; r++)); do
  t0=$(now_ms); seqfuse_run; sf_ms+=($(($(now_ms) - t0)))
  if [ -n "$base" ]; then t0=$(now_ms); seqfuse_run "$base" -baseline; base_ms+=($(($(now_ms) - t0))); fi
  t0=$(now_ms); cudasw_run; half_ms+=($(($(now_ms) - t0)))
  t0=$(now_ms); cudasw_run --dpx; dpx_ms+=($(($(now_ms) - t0)))
done
sf_med=$(printf '%s\n' "${sf_ms[@]}" | median)
half_med=$(printf '%s\n' "${half_ms[@]}" | median)
dpx_med=$(printf '%s\n' "${dpx_ms[@]}" | median)
{
  echo "# seqfuse vs CUDASW++4.0, protein search, each on its own prebuilt database (issue 18)"
  echo
  echo "- $(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1), $threads threads"
  echo "- seqfuse: $("$sf" --version 2>&1 | head -n1); CUDASW++4.0 37a394c (built with nvcc 13.0, sm_90)"
  echo "- database: mmseqs2-examples DB x $copies ($residues residues); $(grep -c '>' "$work/Q.fasta") queries (CUDASW_QUERIES=${CUDASW_QUERIES:-10}); SW BLOSUM62 11/1 (CUDASW++: its blosum62 default -11/-1), top 10"
  echo "- command: \`bash scripts/device-align-cudasw.sh\`, RUNS=$runs, whole processes, medians"
  echo
  echo "| step | seqfuse | CUDASW++4.0 |"
  echo "|---|---|---|"
  echo "| database build (once) | align-db $(list "$sfdb_ms")s | makedb $(list "$makedb_ms")s |"
  echo "| search, median (runs) | $sf_med s ($(list "${sf_ms[@]}")) | half2 (default) $half_med s ($(list "${half_ms[@]}")); --dpx $dpx_med s ($(list "${dpx_ms[@]}")) |"
  echo
  awk -v a="$sf_med" -v b="$half_med" -v c="$dpx_med" 'BEGIN {
    best = b < c ? b : c
    printf "seqfuse vs CUDASW++ best: %.2fx (>1: seqfuse faster)\n", best / a }'
  if [ -n "$base" ]; then
    echo
    echo "Baseline seqfuse ($("$base" --version 2>&1 | head -n1)): $(printf '%s\n' "${base_ms[@]}" | median) s" \
      "($(list "${base_ms[@]}")); output $(cmp -s "$work/seqfuse.tsv" "$work/seqfuse-baseline.tsv" && echo identical || echo DIFFERENT)"
  fi
  echo
  echo "CUDASW++ --verbose (one --dpx run):"
  echo '```'
  "$work/align" --query "$work/Q.fasta" --db "$work/db/DB" --top 10 --dpx --verbose --of /dev/null 2>&1 |
    grep -iE 'gcups|tcups|time|total' | tail -n 12
  echo '```'
  echo "Top hit of the first query: seqfuse \`$(head -n 2 "$work/seqfuse.tsv" | tail -n 1 | cut -c1-120)\`;" \
    "CUDASW++ \`$(head -n 2 "$work/cudasw--dpx.tsv" | tail -n 1 | cut -c1-120)\`"
} >"$page"
SEQFUSE_TRACE=1 "$sf" align-sw "$work/Q.fasta" "$work/DB.sfdb" --top 10 -t "$threads" -o /dev/null 2>&1 |
  tail -n 2 >>"$page"
cat "$page"
