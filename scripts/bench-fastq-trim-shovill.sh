#!/usr/bin/env bash
# seqfuse fastq-trim beside fastp 0.23.2 on the shovill example reads
# (2 x 50,000 of 150 bp, gzip), timed side by side with hyperfine (median of
# RUNS after one warm-up), both on the same -w: pairs with plain output, pairs
# with gzip output, and read 1 alone (fastp's single-end adapter detection
# runs). Each pair of runs is checked to give the same reads. Prints a
# markdown table; needs hyperfine and fastp (scripts/setup.sh --peers) and
# shovill-examples (--data).
#   bash scripts/bench-fastq-trim-shovill.sh [SEQFUSE]   (default build/bin/seqfuse)
# Environment: THREADS (default 2), RUNS (default 5).
set -euo pipefail
sf=$(realpath "${1:-build/bin/seqfuse}")
threads=${THREADS:-2}
runs=${RUNS:-5}
r1=/usr/share/doc/shovill-examples/R1.fq.gz
r2=/usr/share/doc/shovill-examples/R2.fq.gz
for tool in hyperfine fastp; do
  command -v "$tool" >/dev/null || { echo "bench-fastq-trim: $tool is not installed" >&2; exit 1; }
done
[ -f "$r1" ] || { echo "bench-fastq-trim: shovill-examples is not installed" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

row() {  # row NAME EXT FASTP_ARGS...: one table row; the same args go to both tools
  local name=$1 ext=$2
  shift 2
  hyperfine -N --warmup 1 --runs "$runs" --export-json "$name.json" \
    -n fastp "fastp -w $threads $* -o f1.$ext ${paired:+-O f2.$ext} -j f.json -h f.html" \
    -n seqfuse "$sf fastq-trim --quiet -w $threads $* -o s1.$ext ${paired:+-O s2.$ext} -j s.json -h s.html" \
    >/dev/null 2>&1
  local same=yes f
  for f in 1 ${paired:+2}; do
    cmp -s <(gzip -dcf "f$f.$ext") <(gzip -dcf "s$f.$ext") || same=no
  done
  python3 - "$name.json" "$name" "$same" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
f, s = res["fastp"]["median"], res["seqfuse"]["median"]
print(f"| {sys.argv[2]} | {f:.3f} | {s:.3f} | {f / s:.1f}x | {sys.argv[3]} |")
PY
}

echo "# fastq-trim beside fastp on shovill R1/R2 ($(date -u +%F), $(nproc) cores, -w $threads, median of $runs)"
echo ""
echo "| run | fastp s | seqfuse s | fastp / seqfuse | reads identical |"
echo "|---|---|---|---|---|"
paired=1 row "pairs, plain output" fq -i "$r1" -I "$r2"
paired=1 row "pairs, gzip output" fq.gz -i "$r1" -I "$r2"
paired="" row "read 1 alone" fq -i "$r1"
