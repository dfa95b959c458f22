#!/usr/bin/env bash
# Where `seqfuse embed`'s GPU time goes, per kernel, on the GPU machine:
# ncu times every kernel of one run (a random esm2_t6_8M-shaped model from
# scripts/make-random-esm.py, EMBED_PROFILE_COUNT proteins of 50 to 500
# residues) and the durations are summed by kernel name. ncu runs with
# --clock-control none (the clocks stay as they are; METHOD.md). Writes
# $OUT/embed-profile.md. Standalone, or as device-run.sh's extra step:
#   DEVICE_EXTRA=scripts/device-embed-profile.sh bash scripts/device-run.sh --no-cpu-tests
# Environment: EMBED_PROFILE_SHAPE (t6, t12, t30 or t33; default t6),
# EMBED_PROFILE_COUNT (default 400), EMBED_PROFILE_PROTEINS (random, or
# mmseqs: the bundle's real proteins, --data), EMBED_PROFILE_ARGS (more embed options,
# default "--toks-per-batch 65536"), EMBED_PROFILE_DTYPES (default "bf16 fp32").
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
die() { echo "device-embed-profile: error: $*" >&2; exit 1; }

[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh here and carry 'bundle'"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle
ncu=$(find_ncu)
[ -n "$ncu" ] || die "ncu not found"

shape=${EMBED_PROFILE_SHAPE:-t6}
count=${EMBED_PROFILE_COUNT:-400}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/make-random-esm.py "$work" "$shape" "$count" >/dev/null
proteins_note="$count proteins of 50 to 500 residues"
if [ "${EMBED_PROFILE_PROTEINS:-random}" = mmseqs ]; then
  # The benchmark's real lengths: the first $count mmseqs2-examples proteins.
  [ -f bundle/data/mmseqs_DB.fasta.gz ] || die "EMBED_PROFILE_PROTEINS=mmseqs needs the bundle made with --data"
  first_records "$count" bundle/data/mmseqs_DB.fasta.gz >"$work/proteins.fa"
  proteins_note="the first $count mmseqs2-examples proteins"
fi
page=$OUT/embed-profile.md
{
  echo "# seqfuse embed: GPU time per kernel ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "- machine: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -n1)"
  echo "- seqfuse: $(bundle/bin/seqfuse --version 2>&1 | head -n1)"
  echo "- model: random $shape (scripts/make-random-esm.py), $proteins_note"
  echo "- command: ncu --clock-control none --metrics gpu__time_duration.sum seqfuse embed ... ${EMBED_PROFILE_ARGS:---toks-per-batch 65536}"
} >"$page"
for dtype in ${EMBED_PROFILE_DTYPES:-bf16 fp32}; do
  # shellcheck disable=SC2086  # EMBED_PROFILE_ARGS is split on purpose
  "$ncu" --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
    bundle/bin/seqfuse embed --model "$work/model" --device gpu --dtype "$dtype" --format npy \
    -o "$work/out.npy" ${EMBED_PROFILE_ARGS:---toks-per-batch 65536} "$work/proteins.fa" \
    >"$work/ncu-$dtype.csv" 2>"$work/ncu-$dtype.err" ||
    { tail -n 20 "$work/ncu-$dtype.err" >&2; die "ncu failed ($dtype)"; }
  python3 - "$work/ncu-$dtype.csv" "$dtype" >>"$page" <<'EOF'
import collections, csv, re, sys
path, dtype = sys.argv[1], sys.argv[2]
lines = [l for l in open(path) if l.startswith('"')]
rows = list(csv.DictReader(lines))
total = collections.defaultdict(float)
calls = collections.Counter()
for r in rows:
    if r.get("Metric Name") != "gpu__time_duration.sum":
        continue
    name = r["Kernel Name"]
    # Namespaces and parameter lists make long names: keep the function and
    # its template arguments.
    short = re.sub(r"^void ", "", name)
    short = re.sub(r"(\(anonymous namespace\)|<unnamed>)::", "", short).split("(")[0]
    short = re.sub(r"seqfuse::(gpu::)?(nn::)?", "", short) or name[:60]
    # --print-units base gives nanoseconds, with thousands separators.
    total[short] += float(r["Metric Value"].replace(",", "")) * 1e-9
    calls[short] += 1
whole = sum(total.values())
print(f"\n## {dtype}: {sum(calls.values())} kernels, {whole * 1e3:.2f} ms of GPU time\n")
print("| kernel | launches | ms | share |")
print("|---|---:|---:|---:|")
for name, seconds in sorted(total.items(), key=lambda kv: -kv[1]):
    print(f"| `{name}` | {calls[name]} | {seconds * 1e3:.3f} | {seconds / whole * 100:.1f} % |")
EOF
done
cat "$page"
