#!/usr/bin/env bash
# Issue #5's GEMM figure on the GPU machine: the rate seqfuse embed's GEMMs
# reach on an esm2_t33_650M-shaped model in bf16, against the bf16
# tensor-core rate measured on the same machine (torch, 8192^3 matmul).
# ncu times every cuBLASLt kernel of one run over the first
# EMBED_GEMM_COUNT proteins of the bundle's mmseqs2-examples DB (default
# 300); the GEMM flops are 2 x tokens x layers x 12 hidden^2 (QKV 3h^2,
# output h^2, up and down 4h^2 each). Writes $OUT/embed-gemm-rate.md.
#   DEVICE_EXTRA=scripts/device-embed-gemm-rate.sh bash scripts/device-run.sh --no-cpu-tests
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
die() { echo "device-embed-gemm-rate: error: $*" >&2; exit 1; }
[ -x bundle/bin/seqfuse ] || die "no bundle/bin/seqfuse: run scripts/device-bundle.sh --data and carry 'bundle'"
proteins=bundle/data/mmseqs_DB.fasta.gz
[ -f "$proteins" ] || die "no $proteins: make the bundle with --data"
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle
ncu=$(find_ncu)
[ -n "$ncu" ] || die "ncu not found"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=${EMBED_GEMM_COUNT:-300}
first_records "$count" "$proteins" >"$work/proteins.fa"

# The machine's bf16 tensor-core rate, and a random 650M-shaped checkpoint.
python3 - "$work/model" >"$work/peak.txt" <<'EOF'
import sys, time, torch
from transformers import EsmConfig, EsmModel
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    a @ b
torch.cuda.synchronize()
runs, t0 = 20, time.perf_counter()
for _ in range(runs):
    a @ b
torch.cuda.synchronize()
print(f"{2 * 8192**3 * runs / (time.perf_counter() - t0) / 1e12:.1f}")
config = EsmConfig(vocab_size=33, mask_token_id=32, pad_token_id=1, hidden_size=1280,
                   num_hidden_layers=33, num_attention_heads=20, intermediate_size=5120,
                   max_position_embeddings=1026, position_embedding_type="rotary",
                   token_dropout=True, emb_layer_norm_before=False, layer_norm_eps=1e-5,
                   hidden_act="gelu", is_folding_model=False)
EsmModel(config, add_pooling_layer=False).eval().float().save_pretrained(sys.argv[1])
EOF
peak=$(head -n1 "$work/peak.txt")

"$ncu" --clock-control none --kernel-name regex:'nvjet|gemm|xmma|cutlass' \
  --metrics gpu__time_duration.sum --csv --print-units base \
  bundle/bin/seqfuse embed --model "$work/model" --device gpu --dtype bf16 --format npy \
  -o "$work/out.npy" "$work/proteins.fa" >"$work/ncu.csv" 2>"$work/ncu.err" ||
  { tail -n 20 "$work/ncu.err" >&2; die "ncu failed"; }
summary=$(grep '^seqfuse embed:' "$work/ncu.err" | tail -n1)

python3 - "$work/ncu.csv" "$work/proteins.fa" "$peak" "$count" "$summary" >"$OUT/embed-gemm-rate.md" <<'EOF'
import collections, csv, sys
path, fasta, peak, count, summary = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]
tokens, length = 0, None
for line in open(fasta):
    if line.startswith(">"):
        if length is not None:
            tokens += min(length, 1022) + 2
        length = 0
    else:
        length += len(line.strip())
tokens += min(length, 1022) + 2
rows = list(csv.DictReader(l for l in open(path) if l.startswith('"')))
per_kernel = collections.defaultdict(float)
for r in rows:
    if r.get("Metric Name") == "gpu__time_duration.sum":
        per_kernel[r["Kernel Name"].split("(")[0]] += float(r["Metric Value"].replace(",", "")) * 1e-9
seconds = sum(per_kernel.values())
hidden, layers = 1280, 33
flops = 2 * tokens * layers * 12 * hidden * hidden
rate = flops / seconds / 1e12
print("# embed GEMM rate, esm2_t33_650M shape, bf16 (scripts/device-embed-gemm-rate.sh)\n")
print(f"- input: first {count} mmseqs2-examples proteins, {tokens:,} tokens with BOS/EOS")
print(f"- seqfuse: `{summary}`")
print(f"- machine bf16 tensor-core rate (torch, 8192^3 bf16 matmul, 20 runs): {peak:.1f} TFLOP/s")
print(f"- GEMM kernels (ncu, gpu__time_duration): {seconds * 1e3:.2f} ms for {flops / 1e12:.2f} TFLOP")
print(f"- **GEMM rate: {rate:.0f} TFLOP/s = {rate / peak * 100:.0f} % of the measured rate** (target 60 %)\n")
print("| kernel | ms |\n|---|---:|")
for name, s in sorted(per_kernel.items(), key=lambda kv: -kv[1]):
    print(f"| `{name}` | {s * 1e3:.3f} |")
EOF
cat "$OUT/embed-gemm-rate.md"
