#!/usr/bin/env bash
# Times one seqfuse command against its peer in ONE hyperfine call (so both run
# side by side on the same warm machine), runs an optional agreement check, and
# appends a row to a markdown results page that names the machine.
#
# Usage: bench/compare.sh --name NAME --seqfuse 'CMD' --peer 'CMD' [--check 'CMD']
#          [--runs N] [--warmup N] [--input-desc TEXT] [--build TEXT]
#          [--results FILE | --results-dir DIR] [--json-dir DIR]
#   --check       shell command; exit status 0 means the two outputs agree
#   --results     results page (default: DIR/<date>-<machine>.md, DIR from
#                 --results-dir, default bench/results); created with a header
#   --json-dir    keep hyperfine's JSON there as NAME.json (default: discarded)
#   --build       what was measured (version, commit), printed in a new header
# Exit status: 0 done and agreeing (or no check), 1 usage or hyperfine failure,
# 3 timed but the check found the outputs disagree (the row is still written).
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

die() { echo "compare.sh: error: $*" >&2; exit 1; }

# Lowercase, anything but letters and digits becomes one '-'.
slug() {
  tr '[:upper:]' '[:lower:]' <<<"$1" | sed -E 's/[^a-z0-9]+/-/g; s/^-+//; s/-+$//'
}

gpu_name() {  # first GPU's name, empty when there is no working driver
  local name
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null) || return 0
  head -n1 <<<"$name"
}

gpu_driver() {
  local v
  v=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null) || return 0
  head -n1 <<<"$v"
}

cpu_model() {
  local m
  m=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*: *//') || true
  echo "${m:-unknown CPU}"
}

# The page is named after the GPU; on a machine without one, after a short CPU
# model, so figures from different machines never land in one table.
machine_id() {
  local gpu short
  gpu=$(gpu_name)
  if [ -n "$gpu" ]; then
    slug "$gpu"
  else
    short=$(cpu_model | sed -E 's/\((R|TM|tm|r)\)//g; s/@.*$//; s/\b(CPU|Processor)\b//g')
    echo "cpu-$(slug "$short")"
  fi
}

repo=$(cd "$(dirname "$0")/.." && pwd)
name="" seqfuse_cmd="" peer_cmd="" check_cmd="" runs=10 warmup=2
results="" results_dir="$repo/bench/results" input_desc="-" json_dir="" build=""
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --name|--seqfuse|--peer|--check|--runs|--warmup|--results|--results-dir|--input-desc|--json-dir|--build)
      (($# >= 2)) || die "$1 needs a value"
      case "$1" in
        --name) name=$2 ;;
        --seqfuse) seqfuse_cmd=$2 ;;
        --peer) peer_cmd=$2 ;;
        --check) check_cmd=$2 ;;
        --runs) runs=$2 ;;
        --warmup) warmup=$2 ;;
        --results) results=$2 ;;
        --results-dir) results_dir=$2 ;;
        --input-desc) input_desc=$2 ;;
        --json-dir) json_dir=$2 ;;
        --build) build=$2 ;;
      esac
      shift 2 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
[ -n "$name" ] || die "--name is required"
[ -n "$seqfuse_cmd" ] || die "--seqfuse is required"
[ -n "$peer_cmd" ] || die "--peer is required"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer, not '$runs'"
[[ "$warmup" =~ ^[0-9]+$ ]] || die "--warmup must be a non-negative integer, not '$warmup'"
command -v hyperfine >/dev/null || die "hyperfine is not on PATH"
command -v python3 >/dev/null || die "python3 is not on PATH"

machine=$(machine_id)
[ -n "$results" ] || results="$results_dir/$(date -u +%F)-$machine.md"
mkdir -p "$(dirname "$results")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "$json_dir" ]; then
  mkdir -p "$json_dir"
  json="$json_dir/$(slug "$name").json"
else
  json="$tmp/hyperfine.json"
fi

echo "compare.sh: $name: timing seqfuse vs peer ($warmup warm-up, $runs runs)"
if ! hyperfine --warmup "$warmup" --runs "$runs" --export-json "$json" \
     -n seqfuse "$seqfuse_cmd" -n peer "$peer_cmd"; then
  die "$name: hyperfine failed (a command exited non-zero?); no row written"
fi

agreement="not checked"
status=0
if [ -n "$check_cmd" ]; then
  if bash -c "$check_cmd" >"$tmp/check.out" 2>&1; then
    agreement="yes"
  else
    rc=$?
    agreement="NO (check exit $rc)"
    status=3
    echo "compare.sh: $name: check failed (exit $rc); its output:" >&2
    sed 's/^/  | /' "$tmp/check.out" | tail -n 20 >&2
  fi
fi

gpu=$(gpu_name)
gpu_line="none"
[ -z "$gpu" ] || gpu_line="$gpu (driver $(gpu_driver))"

# Python does the JSON and the page edit: it is on both machines (jq and bc are
# not on the GPU machine). The row goes under the table's last row and the
# command list grows at the end, so the page stays one table plus one list.
NAME="$name" INPUT_DESC="$input_desc" AGREEMENT="$agreement" \
SEQFUSE_CMD="$seqfuse_cmd" PEER_CMD="$peer_cmd" CHECK_CMD="$check_cmd" \
RUNS="$runs" WARMUP="$warmup" RESULTS="$results" JSON="$json" \
MACHINE="$machine" GPU_LINE="$gpu_line" CPU_LINE="$(cpu_model)" CORES="$(nproc)" \
HYPERFINE_VERSION="$(hyperfine --version)" BUILD="$build" DATE="$(date -u +%F)" \
python3 - <<'PY'
import json, os, re

e = os.environ
with open(e["JSON"]) as f:
    by_name = {r["command"]: r for r in json.load(f)["results"]}
sf, peer = by_name["seqfuse"], by_name["peer"]

def secs(x):
    return f"{x:.4f}" if x < 1 else f"{x:.3f}"

def cell(text):
    return text.replace("|", "\\|")

def code(text):
    # A code span fenced with more backticks than the longest run inside it.
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"

ratio = peer["median"] / sf["median"] if sf["median"] > 0 else float("inf")
row = (f"| {cell(e['NAME'])} | {cell(e['INPUT_DESC'])} | {secs(sf['median'])} | "
       f"{secs(peer['median'])} | {ratio:.2f} | {cell(e['AGREEMENT'])} |")
item = (f"- {e['NAME']}: seqfuse {code(e['SEQFUSE_CMD'])}; peer {code(e['PEER_CMD'])}; "
        + (f"check {code(e['CHECK_CMD'])}; " if e["CHECK_CMD"] else "no check; ")
        + f"{e['RUNS']} runs after {e['WARMUP']} warm-up")

path = e["RESULTS"]
if not os.path.exists(path) or os.path.getsize(path) == 0:
    header = [
        f"# seqfuse vs peers: {e['DATE']}, {e['MACHINE']}",
        "",
        f"- date (UTC): {e['DATE']}",
        f"- machine: GPU {e['GPU_LINE']}; CPU {e['CPU_LINE']}; {e['CORES']} cores",
        f"- timer: {e['HYPERFINE_VERSION']}, whole processes, medians after warm-up runs",
    ]
    if e.get("BUILD"):
        header.append(f"- measured: {e['BUILD']}")
    header += [
        "- ratio peer/seqfuse above 1 means seqfuse was faster",
        "",
        "| workload | input | seqfuse median (s) | peer median (s) | ratio peer/seqfuse | agreement |",
        "|---|---|---|---|---|---|",
        "",
        "Commands:",
        "",
    ]
    lines = header
else:
    with open(path) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()

last_row = max(i for i, line in enumerate(lines) if line.startswith("|"))
lines.insert(last_row + 1, row)
lines.append(item)
tmp = path + ".tmp"
with open(tmp, "w") as f:
    f.write("\n".join(lines) + "\n")
os.replace(tmp, path)

print(f"{e['NAME']}: seqfuse {secs(sf['median'])} s (sd {sf['stddev'] or 0:.4f}), "
      f"peer {secs(peer['median'])} s (sd {peer['stddev'] or 0:.4f}), ratio {ratio:.2f}, "
      f"agreement {e['AGREEMENT']}")
print(row)
PY
echo "compare.sh: $name: row appended to $results"
exit "$status"
