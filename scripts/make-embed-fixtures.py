#!/usr/bin/env python3
"""Small random-weight ESM-2 checkpoints and their reference embeddings.

Runs on the GPU machine (python3 with torch, transformers 5 and safetensors):
    python3 scripts/make-embed-fixtures.py OUTDIR

For each fixture OUTDIR/<name>/ gets config.json, model.safetensors and
reference.tsv; OUTDIR/proteins.fa holds the sequences. References come from
transformers' EsmModel in float64, one sequence per forward pass (no
padding), from the same (rounded) weights the checkpoint stores.

reference.tsv rows: id <TAB> what <TAB> v1 <TAB> v2 ...
  what = mean       mean over residues of the final (normed) layer
         bos        the BOS (<cls>) vector of the final layer
         token:I    token I of the final layer (0 = BOS), a few sequences only
         mean@L     mean over residues of hidden_states[L] (L = 0: embeddings)
Sequences longer than 1022 residues are cut to their first 1022 (esm-extract).
"""
import json
import os
import random
import sys

import torch
from safetensors.torch import save_file
from transformers import EsmConfig, EsmModel

VOCAB = ["<cls>", "<pad>", "<eos>", "<unk>", "L", "A", "G", "V", "S", "E", "R", "T",
         "I", "D", "P", "K", "Q", "N", "F", "Y", "M", "H", "W", "C", "X", "B", "U",
         "Z", "O", ".", "-", "<null_1>", "<mask>"]
MAX_RESIDUES = 1022

# name, hidden, heads, layers, intermediate, stored dtype, layout
FIXTURES = [
    ("esm_hd16_fp32_hub", 64, 4, 2, 128, torch.float32, "hub"),
    ("esm_hd24_fp16_saved", 48, 2, 2, 96, torch.float16, "saved"),
    ("esm_hd32_bf16_hub", 64, 2, 3, 128, torch.bfloat16, "hub"),
    ("esm_hd64_fp32_saved", 128, 2, 2, 256, torch.float32, "saved"),
]


def make_sequences(rng):
    common = "LAGVSERTIDPKQNFYMHWC"
    seqs = [("len1", "M"), ("len2", "MK"), ("rare_letters", "MXBUZOKL.-AC"),
            ("unknown_letters", "MJ*KLJ"), ("all_unknown", "JJJ")]
    for i, n in enumerate([7, 31, 64, 100, 257]):
        seqs.append((f"random{i}_len{n}", "".join(rng.choice(common) for _ in range(n))))
    seqs.append(("long_1030", "".join(rng.choice(common) for _ in range(1030))))
    return seqs


def token_ids(seq):
    ids = [0]
    for c in seq[:MAX_RESIDUES]:
        ids.append(VOCAB.index(c) if c in VOCAB[4:31] else 3)
    ids.append(2)
    return ids


def perturb_and_round(model, dtype, gen):
    # Random weights far from init so every term matters: LayerNorm gains and
    # all biases moved off 1 and 0, matrices with a larger spread than init.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias") or "LayerNorm" in name or "layer_norm" in name:
                p.add_(torch.randn(p.shape, generator=gen) * 0.1)
            else:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.1)
            p.copy_(p.to(dtype).to(torch.float32))  # what the checkpoint will hold


def hub_state_dict(model, dtype, config, gen):
    """The layout of the hub's checkpoints (EsmForMaskedLM): esm. prefix,
    LayerNorm.weight/bias, an inv_freq per layer, plus lm_head tensors that
    an embedding tool must skip."""
    out = {}
    inv_freq = None
    for name, t in model.state_dict().items():
        if name.endswith("inv_freq"):
            inv_freq = t
            continue
        if name.endswith("position_ids"):
            continue
        name = name.replace("LayerNorm.gamma", "LayerNorm.weight").replace(
            "LayerNorm.beta", "LayerNorm.bias")
        out["esm." + name] = t.to(dtype).contiguous()
    if inv_freq is None:
        hd = config.hidden_size // config.num_attention_heads
        inv_freq = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
    for i in range(config.num_hidden_layers):
        out[f"esm.encoder.layer.{i}.attention.self.rotary_embeddings.inv_freq"] = \
            inv_freq.to(torch.float32).clone()
    h, v = config.hidden_size, config.vocab_size
    out["lm_head.dense.weight"] = torch.randn(h, h, generator=gen).to(dtype)
    out["lm_head.dense.bias"] = torch.randn(h, generator=gen).to(dtype)
    out["lm_head.layer_norm.weight"] = torch.randn(h, generator=gen).to(dtype)
    out["lm_head.layer_norm.bias"] = torch.randn(h, generator=gen).to(dtype)
    out["lm_head.bias"] = torch.randn(v, generator=gen).to(dtype)
    return out


def fmt(values):
    return "\t".join(repr(float(x)) for x in values)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    rng = random.Random(20261122)
    seqs = make_sequences(rng)
    with open(os.path.join(outdir, "proteins.fa"), "w") as f:
        for name, s in seqs:
            f.write(f">{name} fixture\n")
            for i in range(0, len(s), 60):
                f.write(s[i:i + 60] + "\n")
    token_rows_for = {"len1", "rare_letters", "random1_len31"}

    for index, (name, hidden, heads, layers, inter, dtype, layout) in enumerate(FIXTURES):
        gen = torch.Generator().manual_seed(1000 + index)
        torch.manual_seed(1000 + index)
        config = EsmConfig(vocab_size=33, mask_token_id=32, pad_token_id=1,
                           hidden_size=hidden, num_hidden_layers=layers,
                           num_attention_heads=heads, intermediate_size=inter,
                           hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                           max_position_embeddings=1026, position_embedding_type="rotary",
                           token_dropout=True, emb_layer_norm_before=False,
                           layer_norm_eps=1e-5, hidden_act="gelu", is_folding_model=False)
        model = EsmModel(config, add_pooling_layer=False).eval()
        perturb_and_round(model, dtype, gen)
        fixture_dir = os.path.join(outdir, name)
        os.makedirs(fixture_dir, exist_ok=True)
        if layout == "saved":
            model.to(dtype).save_pretrained(fixture_dir, safe_serialization=True)
            model.to(torch.float32)
        else:
            config.architectures = ["EsmForMaskedLM"]
            config.save_pretrained(fixture_dir)
            save_file(hub_state_dict(model, dtype, config, gen),
                      os.path.join(fixture_dir, "model.safetensors"),
                      metadata={"format": "pt"})
        from safetensors import safe_open
        with safe_open(os.path.join(fixture_dir, "model.safetensors"), "pt") as f:
            keys = sorted(f.keys())
        print(f"{name}: {len(keys)} tensors, e.g. {keys[:3]} ... {keys[-3:]}")

        device = "cuda" if torch.cuda.is_available() else "cpu"
        model = model.to(torch.float64).to(device)
        rows = []
        with torch.no_grad():
            for seq_name, seq in seqs:
                ids = torch.tensor([token_ids(seq)], device=device)
                out = model(input_ids=ids, attention_mask=torch.ones_like(ids),
                            output_hidden_states=True)
                last = out.last_hidden_state[0]
                hs = out.hidden_states
                if seq_name == "len1" and not torch.equal(hs[-1][0], last):
                    print(f"{name}: note: hidden_states[-1] is not last_hidden_state")
                rows.append((seq_name, "mean", last[1:-1].mean(0)))
                rows.append((seq_name, "bos", last[0]))
                for li, h in enumerate(hs):
                    rows.append((seq_name, f"mean@{li}", h[0][1:-1].mean(0)))
                if seq_name in token_rows_for:
                    for ti in range(last.shape[0]):
                        rows.append((seq_name, f"token:{ti}", last[ti]))
        with open(os.path.join(fixture_dir, "reference.tsv"), "w") as f:
            for seq_name, what, vec in rows:
                f.write(f"{seq_name}\t{what}\t{fmt(vec.cpu().tolist())}\n")
        print(f"{name}: {len(rows)} reference rows, layout {layout}, dtype {dtype}")
    import transformers
    print("torch", torch.__version__, "transformers", transformers.__version__)


if __name__ == "__main__":
    main()
