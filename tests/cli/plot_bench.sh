#!/usr/bin/env bash
# The README's performance chart (issue 19 point 9): bench/results/summary.tsv
# must quote its results files faithfully, and scripts/plot-bench.py must
# draw it. Per row: the cited file exists in bench/results/, one line of it
# holds the row's peer_seconds, seqfuse_seconds and speedup (as numbers, not
# inside longer ones), and the file names the row's date. Then the script
# runs into a temporary folder, twice, and the two SVGs must be identical
# bytes. Where the matplotlib that drew docs/img/performance.svg is the one
# here, the committed chart must equal a fresh one (a summary edited without
# rerunning the script fails). No python3 matplotlib: the drawing part is
# skipped (exit 77, ctest's SKIP) after the summary has been checked.
# Usage: plot_bench.sh REPO_ROOT
set -euo pipefail
root=$(realpath "$1")
summary="$root/bench/results/summary.tsv"
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$summary" ] || fail "$summary is missing"

# Debian's python3-matplotlib lives in /usr/bin/python3's path; a python3
# earlier in PATH (pyenv, a venv) may lack it, so try both.
py=""
for candidate in python3 /usr/bin/python3; do
  command -v "$candidate" >/dev/null || continue
  [ -z "$py" ] && py=$candidate  # any python3 checks the summary
  if "$candidate" -c 'import matplotlib' 2>/dev/null; then mpl=$candidate; break; fi
done
[ -n "$py" ] || fail "python3 not found (scripts/setup.sh)"

"$py" - "$summary" <<'EOF' || fail "summary.tsv does not quote its results files"
import csv, os, re, sys
summary = sys.argv[1]
results = os.path.dirname(summary)
rows = list(csv.DictReader(open(summary, newline=""), delimiter="\t"))
bad = 0
seen = set()
for n, r in enumerate(rows, 2):
    key = (r["workload"], r["peer"])
    if key in seen:
        print(f"  line {n}: a second row for {key}: one row per workload x peer"); bad += 1
    seen.add(key)
    path = os.path.join(results, r["source"])
    if os.path.basename(r["source"]) != r["source"] or not os.path.isfile(path):
        print(f"  line {n}: source {r['source']!r} is not a file in bench/results/"); bad += 1
        continue
    text = open(path, encoding="utf-8").read()
    numbers = [r["peer_seconds"], r["seqfuse_seconds"], r["speedup"]]
    def quoted(number, line):
        return re.search(r"(?<![0-9.])" + re.escape(number) + r"(?![0-9])", line)
    if not any(all(quoted(x, line) for x in numbers) for line in text.splitlines()):
        print(f"  line {n}: no line of {r['source']} holds {' '.join(numbers)}"); bad += 1
    if r["date"] not in text:
        print(f"  line {n}: {r['source']} does not name the date {r['date']}"); bad += 1
    if float(r["speedup"]) <= 0:
        print(f"  line {n}: speedup {r['speedup']} cannot be drawn on a log scale"); bad += 1
print(f"summary.tsv: {len(rows)} rows checked against their results files")
sys.exit(1 if bad or not rows else 0)
EOF

if [ -z "${mpl:-}" ]; then
  echo "SKIP: no python3 with matplotlib (Debian: python3-matplotlib; scripts/setup.sh installs it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$mpl" "$root/scripts/plot-bench.py" --summary "$summary" --output "$work/a.svg" >/dev/null
"$mpl" "$root/scripts/plot-bench.py" --summary "$summary" --output "$work/b.svg" >/dev/null
grep -q '<svg' "$work/a.svg" || fail "plot-bench.py wrote no SVG"
cmp -s "$work/a.svg" "$work/b.svg" || fail "two runs of plot-bench.py gave different SVGs"
committed="$root/docs/img/performance.svg"
[ -f "$committed" ] || fail "docs/img/performance.svg is missing (run scripts/plot-bench.py)"
version=$("$mpl" -c 'import matplotlib; print(matplotlib.__version__)')
if grep -q "Matplotlib v$version," "$committed"; then
  cmp -s "$work/a.svg" "$committed" ||
    fail "docs/img/performance.svg is not what summary.tsv draws: run scripts/plot-bench.py and commit it"
  echo "plot-bench: chart drawn twice, identical, and equal to docs/img/performance.svg"
else
  echo "plot-bench: chart drawn twice, identical (docs/img/performance.svg drawn by another matplotlib: not compared)"
fi
