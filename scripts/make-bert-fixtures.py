#!/usr/bin/env python3
"""Small random-weight ProtBERT-layout checkpoints and their reference embeddings.

Runs on the GPU machine (python3 with torch, transformers 5 and safetensors):
    python3 scripts/make-bert-fixtures.py OUTDIR [PROTEINS.fa]

PROTEINS.fa defaults to tests/data/embed/proteins.fa (the ESM fixtures'
sequences, so both families are checked on the same letters). For each
fixture OUTDIR/<name>/ gets config.json, vocab.txt (ProtBERT's 30 tokens),
the weights and reference.tsv. References come from transformers' BertModel
in float64, one sequence per forward pass (no padding), from the same
(rounded) weights the checkpoint stores, tokenized as RostLab's scripts do:
    BertTokenizer(vocab.txt, do_lower_case=False)(" ".join(re.sub("[UZOB]", "X", seq)))

reference.tsv rows (as the ESM fixtures'): id <TAB> what <TAB> v1 <TAB> v2 ...
  what = mean       mean over residues of the last layer ([CLS]/[SEP] excluded)
         bos        the [CLS] vector of the last layer
         token:I    token I of the last layer (0 = [CLS]), a few sequences only
         mean@L     mean over residues of hidden_states[L] (L = 0: embeddings,
                    after the embedding LayerNorm)
Sequences longer than 1022 residues are cut to their first 1022 (seqfuse's
default --max-length; the fixtures' position tables hold 1026 positions).

Layouts (every way users hold BERT checkpoints):
  saved     BertModel.save_pretrained: unprefixed names, pooler.* included
  prefixed  BertForMaskedLM/BertForPreTraining names: bert. prefix, old
            LayerNorm.gamma/beta names, cls.* heads that a reader must skip
  sharded   save_pretrained with a small max_shard_size (index + shards)
  bin       pytorch_model.bin written by torch.save (bert. prefix, cls.* heads)
"""
import os
import random
import re
import sys

import torch
from safetensors.torch import save_file
from transformers import BertConfig, BertModel, BertTokenizer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "L", "A", "G", "V", "E", "S", "I",
         "K", "R", "D", "T", "P", "N", "Q", "F", "Y", "M", "H", "C", "W", "X", "U", "B",
         "Z", "O"]
MAX_RESIDUES = 1022
POSITIONS = MAX_RESIDUES + 4

# name, hidden, heads, layers, intermediate, stored dtype, layout, layer_norm_eps
FIXTURES = [
    ("bert_hd16_fp32_saved", 64, 4, 2, 128, torch.float32, "saved", 1e-12),
    ("bert_hd32_bf16_prefixed", 64, 2, 3, 128, torch.bfloat16, "prefixed", 1e-12),
    ("bert_hd24_fp16_sharded", 48, 2, 2, 96, torch.float16, "sharded", 1e-5),
    ("bert_hd64_fp32_bin", 128, 2, 2, 256, torch.float32, "bin", 1e-12),
]


def read_fasta(path):
    seqs, name, parts = [], None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    seqs.append((name, "".join(parts)))
                name, parts = line[1:].split()[0], []
            elif line:
                parts.append(line)
    if name is not None:
        seqs.append((name, "".join(parts)))
    return seqs


def load_tokenizer(folder):
    # from_pretrained reads vocab.txt in transformers 4 and 5 alike (v5's
    # BertTokenizer constructor no longer takes a vocab file path first).
    try:
        return BertTokenizer.from_pretrained(folder, do_lower_case=False)
    except Exception as e:  # noqa: BLE001 - the constructor of transformers 4
        print(f"note: from_pretrained failed ({e}); trying BertTokenizer(vocab.txt)")
        return BertTokenizer(os.path.join(folder, "vocab.txt"), do_lower_case=False)


def rostlab_ids(tokenizer, seq):
    """What RostLab's ProtBERT notebooks feed the model."""
    spaced = " ".join(re.sub(r"[UZOB]", "X", seq))
    return tokenizer(spaced, add_special_tokens=True)["input_ids"]


def seqfuse_ids(seq):
    """The rule seqfuse's C++ tokenizer implements (src/models/bert_tokenizer.cpp):
    upper-case, U/Z/O/B -> X, a letter of the vocabulary is its token, anything
    else [UNK]; [CLS] first, [SEP] last."""
    ids = [VOCAB.index("[CLS]")]
    for c in seq.upper():
        c = "X" if c in "UZOB" else c
        ids.append(VOCAB.index(c) if c in VOCAB[5:] else VOCAB.index("[UNK]"))
    ids.append(VOCAB.index("[SEP]"))
    return ids


def check_tokenizer(tokenizer, seqs):
    # Every printable ASCII character except lower case (which HF, with
    # do_lower_case=False, reads as [UNK] while seqfuse upper-cases it, as it
    # does for ESM) must give the same single token under both rules.
    printable = "".join(chr(c) for c in range(33, 127) if not chr(c).islower())
    for text in [printable] + [s for _, s in seqs]:
        a, b = rostlab_ids(tokenizer, text), seqfuse_ids(text)
        if a != b:
            raise SystemExit(f"tokenizer rules differ on {text[:40]!r}: {a[:20]} vs {b[:20]}")
    print(f"tokenizer: BertTokenizer equals seqfuse's rule on {len(seqs) + 1} strings")


def perturb_and_round(model, dtype, gen):
    # Random weights far from init so every term matters: LayerNorm gains and
    # all biases moved off 1 and 0, matrices with a larger spread than init
    # (token-type row 1 too, which a reader must not add).
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias") or "LayerNorm" in name:
                p.add_(torch.randn(p.shape, generator=gen) * 0.1)
            else:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.1)
            p.copy_(p.to(dtype).to(torch.float32))  # what the checkpoint will hold


def heads_state_dict(config, dtype, gen):
    """Task heads of BertForMaskedLM / BertForPreTraining, to be ignored."""
    h, v = config.hidden_size, config.vocab_size
    return {
        "cls.predictions.bias": torch.randn(v, generator=gen).to(dtype),
        "cls.predictions.transform.dense.weight": torch.randn(h, h, generator=gen).to(dtype),
        "cls.predictions.transform.dense.bias": torch.randn(h, generator=gen).to(dtype),
        "cls.predictions.transform.LayerNorm.gamma": torch.randn(h, generator=gen).to(dtype),
        "cls.predictions.transform.LayerNorm.beta": torch.randn(h, generator=gen).to(dtype),
        "cls.predictions.decoder.weight": torch.randn(v, h, generator=gen).to(dtype),
        "cls.seq_relationship.weight": torch.randn(2, h, generator=gen).to(dtype),
        "cls.seq_relationship.bias": torch.randn(2, generator=gen).to(dtype),
    }


def prefixed_state_dict(model, dtype, config, gen, old_names):
    out = {}
    for name, t in model.state_dict().items():
        if name.endswith("position_ids") or name.endswith("token_type_ids"):
            continue
        if old_names:
            name = name.replace("LayerNorm.weight", "LayerNorm.gamma").replace(
                "LayerNorm.bias", "LayerNorm.beta")
        out["bert." + name] = t.to(dtype).contiguous()
    out.update(heads_state_dict(config, dtype, gen))
    return out


def write_checkpoint(model, config, dtype, layout, fixture_dir, gen):
    if layout in ("saved", "sharded"):
        shard = "40KB" if layout == "sharded" else "10GB"
        model.to(dtype).save_pretrained(fixture_dir, safe_serialization=True,
                                        max_shard_size=shard)
        model.to(torch.float32)
        return
    config.architectures = ["BertForMaskedLM"]
    config.save_pretrained(fixture_dir)
    if layout == "prefixed":
        save_file(prefixed_state_dict(model, dtype, config, gen, old_names=True),
                  os.path.join(fixture_dir, "model.safetensors"), metadata={"format": "pt"})
    else:  # bin
        torch.save(prefixed_state_dict(model, dtype, config, gen, old_names=False),
                   os.path.join(fixture_dir, "pytorch_model.bin"))


def fmt(values):
    return "\t".join(repr(float(x)) for x in values)


def main():
    outdir = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    fasta = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        here, "..", "tests", "data", "embed", "proteins.fa")
    seqs = read_fasta(fasta)
    os.makedirs(outdir, exist_ok=True)
    token_rows_for = {"len1", "rare_letters", "unknown_letters", "random1_len31"}

    for index, (name, hidden, heads, layers, inter, dtype, layout, eps) in enumerate(FIXTURES):
        gen = torch.Generator().manual_seed(2000 + index)
        torch.manual_seed(2000 + index)
        fixture_dir = os.path.join(outdir, name)
        os.makedirs(fixture_dir, exist_ok=True)
        with open(os.path.join(fixture_dir, "vocab.txt"), "w") as f:
            f.write("\n".join(VOCAB) + "\n")
        with open(os.path.join(fixture_dir, "tokenizer_config.json"), "w") as f:
            f.write('{"do_lower_case": false}\n')  # as Rostlab/prot_bert ships it
        tokenizer = load_tokenizer(fixture_dir)
        if index == 0:
            check_tokenizer(tokenizer, seqs)
        config = BertConfig(vocab_size=len(VOCAB), hidden_size=hidden,
                            num_hidden_layers=layers, num_attention_heads=heads,
                            intermediate_size=inter, hidden_act="gelu",
                            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                            max_position_embeddings=POSITIONS, type_vocab_size=2,
                            layer_norm_eps=eps, pad_token_id=0,
                            position_embedding_type="absolute")
        try:
            config._attn_implementation = "eager"  # plain float64 matmuls
        except Exception:  # noqa: BLE001 - sdpa's math path is float64 too
            pass
        model = BertModel(config, add_pooling_layer=(layout == "saved")).eval()
        perturb_and_round(model, dtype, gen)
        write_checkpoint(model, config, dtype, layout, fixture_dir, gen)
        print(f"{name}: {sorted(os.listdir(fixture_dir))}")

        device = "cuda" if torch.cuda.is_available() else "cpu"
        model = model.to(torch.float64).to(device)
        rows = []
        with torch.no_grad():
            for seq_name, seq in seqs:
                ids = rostlab_ids(tokenizer, seq[:MAX_RESIDUES])
                assert ids == seqfuse_ids(seq[:MAX_RESIDUES]), seq_name
                ids = torch.tensor([ids], device=device)
                out = model(input_ids=ids, attention_mask=torch.ones_like(ids),
                            token_type_ids=torch.zeros_like(ids), output_hidden_states=True)
                last = out.last_hidden_state[0]
                hs = out.hidden_states
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
