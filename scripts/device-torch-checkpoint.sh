#!/usr/bin/env bash
# embed on pytorch_model.bin files written by real torch (the GPU machine has
# torch and transformers; CI's tests use scripts/make-torch-checkpoint.py's
# stand-in): for each test model, torch.save of its state_dict (plain, and
# with every tensor in bf16) and transformers' save_pretrained with
# safe_serialization=False must embed to the same bytes as the safetensors
# folder they came from (the bf16 one: as a bf16 safetensors of the same
# values). Writes $OUT/torch-checkpoint.md. Run in the carried bundle:
#   bash scripts/device-torch-checkpoint.sh
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
repo=$PWD
sf=${SEQFUSE_BIN:-$repo/bundle/bin/seqfuse}
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/seqfuse-torch.XXXXXX)
table=$OUT/torch-checkpoint.md
awk '/^>/{keep = $1 != ">all_unknown"} keep' tests/data/embed/proteins.fa >"$work/p.fa"
{
  echo "# embed: pytorch_model.bin written by real torch (issue 21)"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ), $(python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' 2>&1 | tail -n1)"
  echo "- command: \`bash scripts/device-torch-checkpoint.sh\`"
  echo
  echo "| model | written by | device | same bytes as safetensors |"
  echo "|---|---|---|---|"
} >"$table"
failures=0
for m in esm_hd16_fp32_hub esm_hd32_bf16_hub esm_hd24_fp16_saved; do
  src=tests/data/embed/$m
  for how in torch.save torch.save-bf16 save_pretrained; do
    dir=$work/$m-$how ref=$src
    mkdir -p "$dir"
    cp "$src/config.json" "$dir/"
    python3 - "$src" "$dir" "$how" <<'PY' || { echo "| $m | $how | - | WRITER FAILED |" >>"$table"; failures=$((failures + 1)); continue; }
import sys, torch
from safetensors.torch import load_file, save_file
src, out, how = sys.argv[1:4]
state = load_file(f"{src}/model.safetensors")
if how == "torch.save":
    torch.save(state, f"{out}/pytorch_model.bin")
elif how == "torch.save-bf16":
    state = {k: v.to(torch.bfloat16) for k, v in state.items()}
    torch.save(state, f"{out}/pytorch_model.bin")
    import os
    os.makedirs(f"{out}-ref", exist_ok=True)
    save_file(state, f"{out}-ref/model.safetensors")
else:
    from transformers import EsmModel
    model = EsmModel.from_pretrained(src, add_pooling_layer=False)
    model.save_pretrained(out, safe_serialization=False)
PY
    if [ "$how" = torch.save-bf16 ]; then
      cp "$src/config.json" "$dir-ref/"
      ref=$dir-ref
    fi
    for dev in cpu gpu; do
      verdict=identical
      "$sf" embed -q --device $dev --dtype fp32 --model "$ref" "$work/p.fa" -o "$work/a.tsv" 2>"$work/err" &&
        "$sf" embed -q --device $dev --dtype fp32 --model "$dir" "$work/p.fa" -o "$work/b.tsv" 2>>"$work/err" ||
        verdict="FAILED: $(tail -n1 "$work/err")"
      [ "$verdict" = identical ] && ! cmp -s "$work/a.tsv" "$work/b.tsv" && verdict=DIFFERENT
      [ "$verdict" = identical ] || failures=$((failures + 1))
      echo "| $m | $how ($(ls "$dir" | grep -v config.json | tr '\n' ' ')) | $dev | $verdict |" >>"$table"
    done
  done
done
echo >>"$table"
echo "Failures: $failures." >>"$table"
cat "$table"
rm -rf "$work"
[ "$failures" -eq 0 ]
