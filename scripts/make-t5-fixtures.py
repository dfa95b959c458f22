#!/usr/bin/env python3
"""Small random-weight ProtT5-encoder checkpoints and their reference embeddings.

Runs on the GPU machine (python3 with torch, transformers and safetensors;
sentencepiece optional):
    python3 scripts/make-t5-fixtures.py OUTDIR [PROTEINS.fa]

PROTEINS.fa defaults to tests/data/embed/proteins.fa (the ESM and BERT
fixtures' sequences). For each fixture OUTDIR/<name>/ gets config.json,
spiece.model (a copy of tests/data/embed/t5_spiece.model: ProtT5's 28-piece
layout, made once by make-t5-spiece.py), the weights and reference.tsv.
References come from transformers' T5 encoder in float64, one sequence per
forward pass (no padding), from the same (rounded) weights the checkpoint
stores, with the input ids RostLab's scripts produce:
    T5Tokenizer(spiece.model)(" ".join(re.sub(r"[UZOB]", "X", seq)))
computed here from the vocabulary (rostlab_ids below) because the GPU
machine may lack sentencepiece; when `import sentencepiece` works, the ids
are also checked against SentencePiece itself.

reference.tsv rows (as the ESM/BERT fixtures'): id <TAB> what <TAB> v1 ...
  what = mean       mean over the residue tokens of the last layer (after
                    the final RMS norm; </s> excluded)
         token:I    token I of the last layer (0 = the first residue: T5 has
                    no leading token), a few sequences only
         mean@L     mean over residue tokens of hidden_states[L] (L = 0: the
                    embedding rows; L = num_layers: last_hidden_state, after
                    the final norm)
Sequences longer than 1022 residues are cut to their first 1022 (seqfuse's
default --max-length).

Layouts (every way users hold ProtT5 checkpoints):
  saved     T5EncoderModel.save_pretrained (shared.weight + encoder.*)
  sharded   the same with a small max_shard_size (index + shards)
  full      T5ForConditionalGeneration.save_pretrained: decoder.* and an
            untied lm_head.weight present, to be ignored
  bin       pytorch_model.bin by torch.save, the embedding only as
            encoder.embed_tokens.weight (no shared.weight)
"""
import os
import re
import shutil
import sys

import torch
from safetensors.torch import save_file  # noqa: F401 - the saved layouts need it
from transformers import T5Config, T5EncoderModel, T5ForConditionalGeneration

# ProtT5's vocabulary (Rostlab/prot_t5_xl_uniref50): the 28 pieces of
# spiece.model, then T5Tokenizer's 100 <extra_id_*> (ids 127 down to 28).
SPECIALS = ["<pad>", "</s>", "<unk>"]
RESIDUES = "ALGVSREDTIPKFQNYMHWCXBOUZ"
PIECES = SPECIALS + ["\u2581" + c for c in RESIDUES]
VOCAB_SIZE = len(PIECES) + 100
EOS, UNK = 1, 2
MAX_RESIDUES = 1022

# name, d_model, heads, d_kv, layers, d_ff, feed_forward_proj, dtype, layout, eps
FIXTURES = [
    ("t5_hd16_fp32_saved", 64, 4, 16, 2, 128, "relu", torch.float32, "saved", 1e-6),
    ("t5_hd24_fp16_sharded", 48, 3, 24, 3, 96, "gated-gelu", torch.float16, "sharded", 1e-6),
    ("t5_hd32_bf16_full", 64, 4, 32, 2, 160, "gated-gelu", torch.bfloat16, "full", 1e-5),
    ("t5_hd64_fp32_bin", 96, 2, 64, 2, 192, "relu", torch.float32, "bin", 1e-6),
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


def rostlab_ids(seq):
    """The ids SentencePiece gives " ".join(re.sub("[UZOB]", "X", seq)) under
    ProtT5's spiece.model, plus </s>: every residue with a "▁c" piece is that
    piece; a run of letters without one is ONE <unk> (SentencePiece merges
    adjacent unknown pieces: "M J * K" -> ▁M <unk> ▁K). Letters are
    upper-cased first, seqfuse's convention for every family."""
    ids = []
    for c in re.sub(r"[UZOB]", "X", seq.upper()):
        piece = "\u2581" + c
        if piece in PIECES:
            ids.append(PIECES.index(piece))
        elif not ids or ids[-1] != UNK:
            ids.append(UNK)
    return ids + [EOS]


def check_sentencepiece(spiece, seqs):
    try:
        import sentencepiece as spm
    except ImportError:
        print("note: no sentencepiece module here; ids from the vocabulary rule only")
        return
    sp = spm.SentencePieceProcessor(model_file=spiece)
    assert [sp.id_to_piece(i) for i in range(sp.get_piece_size())] == PIECES
    printable = "".join(chr(c) for c in range(33, 127))
    for text in [printable, "MJ*KLJ", "JJJ", "m..k"] + [s for _, s in seqs]:
        spaced = " ".join(re.sub(r"[UZOB]", "X", text.upper()))
        a, b = sp.encode(spaced) + [EOS], rostlab_ids(text)
        if a != b:
            raise SystemExit(f"tokenizer rules differ on {text[:40]!r}: {a[:20]} vs {b[:20]}")
    print(f"tokenizer: SentencePiece equals the vocabulary rule on {len(seqs) + 4} strings")


def perturb_and_round(model, dtype, gen):
    # Random weights far from init so every term matters: RMS norm gains
    # moved off 1, a relative-bias table with a wide spread (so the bucket of
    # every distance shows), matrices at about 1/sqrt(fan-in).
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "layer_norm" in name:
                p.copy_(1.0 + torch.randn(p.shape, generator=gen) * 0.2)
            elif "relative_attention_bias" in name:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
            elif p.dim() == 2 and ("shared" in name or "embed_tokens" in name):
                p.copy_(torch.randn(p.shape, generator=gen))
            elif p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=gen) / p.shape[1] ** 0.5)
            else:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.1)
            p.copy_(p.to(dtype).to(torch.float32))  # what the checkpoint will hold
        # The encoder reads encoder.embed_tokens, which transformers ties to
        # shared (one Parameter in v4; v5 ties by name): the same values
        # under both names whatever the version, as in RostLab's checkpoints.
        model.encoder.embed_tokens.weight.copy_(model.shared.weight)


def make_config(d_model, heads, d_kv, layers, d_ff, proj, eps, full):
    config = T5Config(vocab_size=VOCAB_SIZE, d_model=d_model, d_kv=d_kv, d_ff=d_ff,
                      num_layers=layers, num_decoder_layers=1 if full else layers,
                      num_heads=heads, relative_attention_num_buckets=32,
                      relative_attention_max_distance=128, dropout_rate=0.0,
                      layer_norm_epsilon=eps, feed_forward_proj=proj,
                      tie_word_embeddings=not full, pad_token_id=0, eos_token_id=1,
                      decoder_start_token_id=0)
    try:
        config._attn_implementation = "eager"  # plain float64 matmuls
    except Exception:  # noqa: BLE001
        pass
    return config


def write_checkpoint(model, config, dtype, layout, fixture_dir):
    if layout in ("saved", "sharded", "full"):
        shard = "40KB" if layout == "sharded" else "10GB"
        model.to(dtype).save_pretrained(fixture_dir, safe_serialization=True,
                                        max_shard_size=shard)
        model.to(torch.float32)
        return
    config.architectures = ["T5EncoderModel"]
    config.save_pretrained(fixture_dir)
    state = {k: v.to(dtype).contiguous().clone() for k, v in model.state_dict().items()
             if k != "shared.weight"}
    state["encoder.embed_tokens.weight"] = model.shared.weight.detach().to(dtype).clone()
    torch.save(state, os.path.join(fixture_dir, "pytorch_model.bin"))


def fmt(values):
    return "\t".join(repr(float(x)) for x in values)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    outdir = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, "..", "tests", "data", "embed")
    fasta = sys.argv[2] if len(sys.argv) > 2 else os.path.join(data, "proteins.fa")
    spiece = os.path.join(data, "t5_spiece.model")
    seqs = read_fasta(fasta)
    check_sentencepiece(spiece, seqs)
    os.makedirs(outdir, exist_ok=True)
    token_rows_for = {"len1", "rare_letters", "unknown_letters", "random1_len31"}
    device = "cuda" if torch.cuda.is_available() else "cpu"

    for index, (name, d_model, heads, d_kv, layers, d_ff, proj, dtype, layout,
                eps) in enumerate(FIXTURES):
        gen = torch.Generator().manual_seed(5000 + index)
        torch.manual_seed(5000 + index)
        fixture_dir = os.path.join(outdir, name)
        os.makedirs(fixture_dir, exist_ok=True)
        shutil.copyfile(spiece, os.path.join(fixture_dir, "spiece.model"))
        full = layout == "full"
        config = make_config(d_model, heads, d_kv, layers, d_ff, proj, eps, full)
        model = (T5ForConditionalGeneration if full else T5EncoderModel)(config).eval()
        perturb_and_round(model, dtype, gen)
        write_checkpoint(model, config, dtype, layout, fixture_dir)
        print(f"{name}: {sorted(os.listdir(fixture_dir))}")

        encoder = (model.get_encoder() if full else model).to(torch.float64).to(device)
        rows = []
        with torch.no_grad():
            for seq_name, seq in seqs:
                ids = rostlab_ids(seq[:MAX_RESIDUES])
                ids = torch.tensor([ids], device=device)
                out = encoder(input_ids=ids, attention_mask=torch.ones_like(ids),
                              output_hidden_states=True, return_dict=True)
                last = out.last_hidden_state[0]
                # hidden_states[L] for L < num_layers are the embedding output
                # and the blocks' outputs in every transformers version; the
                # last entry is the final norm's output in v4 (= last) but may
                # be the last block's raw output where v5 records block
                # outputs: seqfuse's state num_layers is last_hidden_state,
                # and state 0 is checked to be the embedding lookup.
                raw = list(out.hidden_states)
                embedded = encoder.get_input_embeddings()(ids)
                if not torch.equal(raw[0], embedded):  # a version recording block outputs only
                    raw = [embedded] + raw
                assert len(raw) >= layers and torch.equal(raw[0], embedded)
                hs = raw[:layers] + [out.last_hidden_state]
                rows.append((seq_name, "mean", last[:-1].mean(0)))
                for li, h in enumerate(hs):
                    rows.append((seq_name, f"mean@{li}", h[0][:-1].mean(0)))
                if seq_name in token_rows_for:
                    for ti in range(last.shape[0] - 1):
                        rows.append((seq_name, f"token:{ti}", last[ti]))
        with open(os.path.join(fixture_dir, "reference.tsv"), "w") as f:
            for seq_name, what, vec in rows:
                f.write(f"{seq_name}\t{what}\t{fmt(vec.cpu().tolist())}\n")
        print(f"{name}: {len(rows)} reference rows, layout {layout}, dtype {dtype}, {proj}")
    import transformers
    print("torch", torch.__version__, "transformers", transformers.__version__)


if __name__ == "__main__":
    main()
