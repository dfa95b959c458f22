#!/usr/bin/env python3
"""A random-weight ESM-2 checkpoint of a real model's shape, and random
proteins, for timing `seqfuse embed` (no torch needed; plain Python).

    python3 scripts/make-random-esm.py OUTDIR [t6|t12|t30|t33|t36] [PROTEINS] [SEED]

OUTDIR/model/ gets config.json and model.safetensors (hub layout, F32);
OUTDIR/proteins.fa gets PROTEINS sequences (default 200) of 50 to 500
residues. Shapes: t6 = esm2_t6_8M (hidden 320, 6 layers, 20 heads), t12 =
esm2_t12_35M (480, 12, 20), t30 = esm2_t30_150M (640, 30, 20), t33 =
esm2_t33_650M (1280, 33, 20), t36 = esm2_t36_3B (2560, 36, 40; an 11 GB
file). t33's and t36's tensors are cut from one block of 2^20 Gaussian
values at random offsets (650 M values drawn one by one would take the best
part of an hour); as good for timing, and the other shapes keep their
values, so their checkpoints stay the same.
"""
import array
import json
import os
import random
import struct
import sys

SHAPES = {"t6": (320, 6, 20), "t12": (480, 12, 20), "t30": (640, 30, 20),
          "t33": (1280, 33, 20), "t36": (2560, 36, 40)}


def main():
    outdir = sys.argv[1]
    shape = sys.argv[2] if len(sys.argv) > 2 else "t6"
    hidden, layers, heads = SHAPES[shape]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rng = random.Random(seed)
    block = None
    if shape in ("t33", "t36"):
        block = array.array("f", (rng.gauss(0, 1) for _ in range(1 << 20)))
    scaled = {}  # spread -> the block times spread
    inter, vocab, head_dim = 4 * hidden, 33, hidden // heads
    tensors = {}

    def tensor(name, shape, spread, base=0.0):
        n = 1
        for d in shape:
            n *= d
        if block is not None and n > 4096 and base == 0.0:
            if spread not in scaled:
                scaled[spread] = array.array("f", (spread * v for v in block))
            source, start = scaled[spread], rng.randrange(len(block))
            values = array.array("f")
            while len(values) < n:
                values.extend(source[start:start + n - len(values)])
                start = 0
        else:
            values = array.array("f", (base + rng.gauss(0, spread) for _ in range(n)))
        tensors[name] = (shape, values)

    tensor("esm.embeddings.word_embeddings.weight", [vocab, hidden], 0.5)
    for i in range(layers):
        p = f"esm.encoder.layer.{i}."
        for norm in ["attention.LayerNorm", "LayerNorm"]:
            tensor(p + norm + ".weight", [hidden], 0.1, 1.0)
            tensor(p + norm + ".bias", [hidden], 0.1)
        for lin in ["attention.self.query", "attention.self.key", "attention.self.value",
                    "attention.output.dense"]:
            tensor(p + lin + ".weight", [hidden, hidden], 0.05)
            tensor(p + lin + ".bias", [hidden], 0.02)
        tensor(p + "intermediate.dense.weight", [inter, hidden], 0.05)
        tensor(p + "intermediate.dense.bias", [inter], 0.02)
        tensor(p + "output.dense.weight", [hidden, inter], 0.05)
        tensor(p + "output.dense.bias", [hidden], 0.02)
        inv_freq = [1.0 / 10000 ** (2 * k / head_dim) for k in range(head_dim // 2)]
        tensors[p + "attention.self.rotary_embeddings.inv_freq"] = (
            [head_dim // 2], array.array("f", inv_freq))
    tensor("esm.encoder.emb_layer_norm_after.weight", [hidden], 0.1, 1.0)
    tensor("esm.encoder.emb_layer_norm_after.bias", [hidden], 0.1)

    model_dir = os.path.join(outdir, "model")
    os.makedirs(model_dir, exist_ok=True)
    header, offset = {}, 0
    for name, (shape, values) in tensors.items():
        size = 4 * len(values)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    with open(os.path.join(model_dir, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for shape, values in tensors.values():
            values.tofile(f)
    config = {"architectures": ["EsmForMaskedLM"], "model_type": "esm",
              "position_embedding_type": "rotary", "hidden_size": hidden,
              "num_hidden_layers": layers, "num_attention_heads": heads,
              "intermediate_size": inter, "vocab_size": vocab, "layer_norm_eps": 1e-5,
              "token_dropout": True, "emb_layer_norm_before": False, "hidden_act": "gelu",
              "mask_token_id": 32, "pad_token_id": 1, "max_position_embeddings": 1026,
              "rope_theta": 10000.0}
    with open(os.path.join(model_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    letters = "LAGVSERTIDPKQNFYMHWC"
    with open(os.path.join(outdir, "proteins.fa"), "w") as f:
        for i in range(count):
            n = rng.randint(50, 500)
            f.write(f">p{i}\n" + "".join(rng.choice(letters) for _ in range(n)) + "\n")


if __name__ == "__main__":
    main()
