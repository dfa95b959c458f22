#!/usr/bin/env python3
"""`seqfuse embed` against Hugging Face transformers on a ProtBERT- or
ProtT5-shaped model, side by side in one call on the GPU machine (#21).

    python3 scripts/embed-bench-family.py --family bert|t5 --seqfuse bundle/bin/seqfuse \
        --proteins bundle/data/mmseqs_DB.fasta.gz --count 500 --out $OUT/embed-bench-bert.md

The models, random weights (fixed seed; there is no download on the GPU
machine), saved with save_pretrained in fp32:
  bert  BertConfig of Rostlab/prot_bert's shape (30 layers, hidden 1024, 16
        heads, intermediate 4096, 30 tokens, 40000 positions, exact gelu, eps
        1e-12) beside ProtBERT's vocab.txt; [CLS] residues [SEP]
  t5    T5Config of Rostlab/prot_t5_xl_uniref50's encoder (24 layers, d_model
        1024, 32 heads of 128, d_ff 16384, relu, 128 tokens) as a
        T5EncoderModel, beside the fixtures' spiece.model (ProtT5's pieces);
        residues </s>
The proteins: the first --count of the FASTA, cut to --max-length residues,
tokenized as RostLab does (U/Z/O/B -> X).
  HF        the family's model fp32 (TF32 off) and bf16, eager and sdpa
            attention, batches sorted by length, padded with an attention
            mask, of at most --hf-tokens padded tokens; one warm-up pass, then
            --runs timed passes (upload, forward, mean over residues, download)
  seqfuse   embed --device gpu --dtype fp32|bf16 --pool mean --format npy,
            one warm-up run, then --runs runs: whole process and its own
            forward time (from the summary line)
Medians; worst per-sequence cosine of every mean embedding against HF fp32
eager. The page (markdown) goes to --out and stdout; progress to stderr.
Reuses scripts/embed-bench.py's FASTA, batching, npy and summary parsers and
scripts/make-t5-fixtures.py's ProtT5 tokenizer rule.
"""
import argparse
import datetime
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("embed_bench", os.path.join(HERE, "embed-bench.py"))
eb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(eb)
_spec = importlib.util.spec_from_file_location("t5_fixtures",
                                               os.path.join(HERE, "make-t5-fixtures.py"))
t5f = importlib.util.module_from_spec(_spec)
try:
    _spec.loader.exec_module(t5f)  # imports torch and transformers, as the benchmark does
except ImportError:
    t5f = None

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "L", "A", "G", "V", "E", "S", "I",
         "K", "R", "D", "T", "P", "N", "Q", "F", "Y", "M", "H", "C", "W", "X", "U", "B",
         "Z", "O"]
PAD, UNK, CLS, SEP = 0, 1, 2, 3
TOKEN = {t: i for i, t in enumerate(VOCAB) if len(t) == 1}
# Rostlab/prot_bert: layers, hidden, heads, intermediate, positions
SHAPE = (30, 1024, 16, 4096, 40000)
# Rostlab/prot_t5_xl_uniref50's encoder: layers, d_model, heads, d_kv, d_ff
T5_SHAPE = (24, 1024, 32, 128, 16384)


def log(message):
    print(f"[{time.monotonic() - START:7.1f} s] {message}", file=sys.stderr, flush=True)


def tokenize(sequence):
    ids = [CLS]
    for c in sequence.upper():
        c = "X" if c in "UZOB" else c
        ids.append(TOKEN.get(c, UNK))
    return ids + [SEP]


def build_t5_checkpoint(torch, folder, seed):
    from transformers import T5Config, T5EncoderModel
    layers, d_model, heads, d_kv, d_ff = T5_SHAPE
    torch.manual_seed(seed)
    config = T5Config(vocab_size=t5f.VOCAB_SIZE, d_model=d_model, d_kv=d_kv, d_ff=d_ff,
                      num_layers=layers, num_heads=heads, relative_attention_num_buckets=32,
                      relative_attention_max_distance=128, dropout_rate=0.0,
                      layer_norm_epsilon=1e-6, feed_forward_proj="relu", pad_token_id=0,
                      eos_token_id=1, decoder_start_token_id=0)
    model = T5EncoderModel(config).eval().float()
    eb.randomize_weights(torch, model, seed)
    model.save_pretrained(folder, safe_serialization=True)
    shutil.copyfile(os.path.join(HERE, "..", "tests", "data", "embed", "t5_spiece.model"),
                    os.path.join(folder, "spiece.model"))
    return sum(p.numel() for p in model.parameters())


def build_checkpoint(torch, folder, seed):
    from transformers import BertConfig, BertModel
    layers, hidden, heads, inter, positions = SHAPE
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=len(VOCAB), hidden_size=hidden, num_hidden_layers=layers,
                        num_attention_heads=heads, intermediate_size=inter, hidden_act="gelu",
                        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                        max_position_embeddings=positions, type_vocab_size=2,
                        layer_norm_eps=1e-12, pad_token_id=0)
    model = BertModel(config, add_pooling_layer=False).eval().float()
    eb.randomize_weights(torch, model, seed)  # unit-gain weights: every term matters
    model.save_pretrained(folder, safe_serialization=True)
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    return sum(p.numel() for p in model.parameters())


def hf_run(torch, model, tokens, batches, hidden, family):
    pooled = torch.zeros(len(tokens), hidden, dtype=torch.float32, device="cuda")
    for batch in batches:
        width = max(len(tokens[i]) for i in batch)
        ids = [tokens[i] + [PAD] * (width - len(tokens[i])) for i in batch]
        mask = [[1] * len(tokens[i]) + [0] * (width - len(tokens[i])) for i in batch]
        ids_t = torch.tensor(ids, dtype=torch.long).to("cuda", non_blocking=True)
        mask_t = torch.tensor(mask, dtype=torch.long).to("cuda", non_blocking=True)
        extra = {"token_type_ids": torch.zeros_like(ids_t)} if family == "bert" else {}
        states = model(input_ids=ids_t, attention_mask=mask_t, **extra).last_hidden_state
        # Mean over the residues: not [CLS] (BERT's first) nor the last ([SEP], </s>).
        residues = mask_t.clone()
        if family == "bert":
            residues[:, 0] = 0
        residues[torch.arange(len(batch), device="cuda"), mask_t.sum(1) - 1] = 0
        w = residues.unsqueeze(-1).float()
        pooled[torch.tensor(batch, device="cuda")] = (states.float() * w).sum(1) / w.sum(1)
    return pooled.cpu()


def time_hf(torch, folder, family, dtype, attn, tokens, batches, hidden, runs):
    if family == "bert":
        from transformers import BertModel
        model = BertModel.from_pretrained(folder, add_pooling_layer=False,
                                          attn_implementation=attn)
    else:
        from transformers import T5EncoderModel
        model = T5EncoderModel.from_pretrained(folder, attn_implementation=attn)
    model = model.eval().to("cuda", dtype=dtype)
    seconds = []
    with torch.inference_mode():
        hf_run(torch, model, tokens, batches[:1], hidden, family)  # warm-up: the largest batch
        for _ in range(runs):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            result = hf_run(torch, model, tokens, batches, hidden, family)
            torch.cuda.synchronize()
            seconds.append(time.perf_counter() - t0)
    del model
    torch.cuda.empty_cache()
    return statistics.median(seconds), seconds, result


def time_seqfuse(args, folder, fasta, work, dtype, n, hidden):
    out = os.path.join(work, f"seqfuse-{dtype}.npy")
    cmd = [args.seqfuse, "embed", "--model", folder, "--device", "gpu", "--dtype", dtype,
           "--pool", "mean", "--format", "npy", "-o", out, fasta]
    whole, forward, summary = [], [], ""
    for k in range(1 + args.runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise eb.BenchError(f"{' '.join(cmd)}: exit {p.returncode}: {eb.last_line(p.stderr)}")
        if k == 0:
            continue  # warm-up (page cache, driver)
        whole.append(time.perf_counter() - t0)
        summary = eb.summary_line(p.stderr)
        rate = eb.forward_rate(summary)
        if rate:
            forward.append(n / rate)
    _, cols, values = eb.read_npy_f32(out)
    return (statistics.median(whole), statistics.median(forward) if forward else None,
            summary, (cols, values))


def worst_cosine(torch, reference, output):
    cols, values = output
    other = torch.frombuffer(bytearray(values.tobytes()), dtype=torch.float32)
    other = other.double().reshape(-1, cols)
    a = reference.double()
    cos = (a * other).sum(1) / (a.norm(dim=1) * other.norm(dim=1)).clamp_min(1e-300)
    return float(cos.min())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=["bert", "t5"], default="bert")
    ap.add_argument("--seqfuse", required=True)
    ap.add_argument("--proteins", required=True)
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--max-length", type=int, default=1022)
    ap.add_argument("--hf-tokens", type=int, default=32768, help="padded tokens per HF batch")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--out", required=True)
    ap.add_argument("--save-model", metavar="DIR",
                    help="only write the family's random checkpoint to DIR (no benchmark; "
                         "--seqfuse, --proteins and --out are then not read)")
    if "--save-model" in sys.argv:
        for name in ("--seqfuse", "--proteins", "--out"):
            next(a for a in ap._actions if name in a.option_strings).required = False
    args = ap.parse_args()

    import torch
    if args.save_model:
        build = build_checkpoint if args.family == "bert" else build_t5_checkpoint
        build(torch, args.save_model, args.seed)
        return
    import transformers
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    records = [(i, s[:args.max_length]) for i, s in eb.read_fasta(args.proteins, args.count) if s]
    family = args.family
    tokens = [tokenize(s) if family == "bert" else t5f.rostlab_ids(s) for _, s in records]
    n, total = len(tokens), sum(len(t) for t in tokens)
    order = sorted(range(n), key=lambda i: -len(tokens[i]))
    batches = eb.padded_batches([len(t) for t in tokens], order, args.hf_tokens)
    hidden = SHAPE[1] if family == "bert" else T5_SHAPE[1]
    rows = []
    with tempfile.TemporaryDirectory(prefix=f"seqfuse-{family}-bench-") as work:
        folder = os.path.join(work, "model")
        build = build_checkpoint if family == "bert" else build_t5_checkpoint
        params = build(torch, folder, args.seed)
        log(f"{MODEL_NAME[family]}-shaped model: {params / 1e6:.0f} M parameters; {n} proteins, "
            f"{total} tokens, {len(batches)} HF batches")
        fasta = os.path.join(work, "proteins.fa")
        with open(fasta, "w") as f:
            for k, (_, s) in enumerate(records):
                f.write(f">s{k:05d}\n{s}\n")
        reference = None
        for dtype, attn in [(torch.float32, "eager"), (torch.float32, "sdpa"),
                            (torch.bfloat16, "eager"), (torch.bfloat16, "sdpa")]:
            label = f"HF {HF_CLASS[family]} {str(dtype).split('.')[-1]} {attn}"
            median, runs, result = time_hf(torch, folder, family, dtype, attn, tokens, batches,
                                           hidden, args.runs)
            if reference is None:
                reference = result
            cos = float(torch.nn.functional.cosine_similarity(
                reference.double(), result.double(), dim=1).min())
            rows.append((label, median, median, cos, ", ".join(f"{s:.3f}" for s in runs)))
            log(f"  {label}: median {median:.3f} s")
        for dtype in ["fp32", "bf16"]:
            whole, forward, summary, output = time_seqfuse(args, folder, fasta, work, dtype, n,
                                                           hidden)
            rows.append((f"seqfuse {dtype}", whole, forward, worst_cosine(torch, reference, output),
                         f"`{summary}`"))
            log(f"  seqfuse {dtype}: whole {whole:.3f} s, forward {forward} s")

    gpu = torch.cuda.get_device_name(0)
    hf_fp32 = min(r[2] for r in rows if "HF" in r[0] and "float32" in r[0])
    hf_best = min(r[2] for r in rows if "HF" in r[0])
    if family == "bert":
        shape = (f"{SHAPE[0]} layers, hidden {SHAPE[1]}, {SHAPE[2]} heads, "
                 f"intermediate {SHAPE[3]}")
    else:
        shape = (f"{T5_SHAPE[0]} layers, d_model {T5_SHAPE[1]}, {T5_SHAPE[2]} heads of "
                 f"{T5_SHAPE[3]}, d_ff {T5_SHAPE[4]} (relu)")
    lines = [f"# seqfuse embed vs HF {HF_CLASS[family]}, {MODEL_NAME[family]} shape "
             f"({datetime.date.today()})", "",
             f"- GPU: {gpu}; torch {torch.__version__}, transformers {transformers.__version__}; "
             f"seqfuse `{eb.seqfuse_version(args.seqfuse)}`",
             f"- model: random weights, {shape}, {params / 1e6:.0f} M parameters",
             f"- input: first {n} proteins of {os.path.basename(args.proteins)}, cut to "
             f"{args.max_length} residues: {total} tokens with "
             f"{'[CLS]/[SEP]' if family == 'bert' else '</s>'}",
             f"- medians of {args.runs} runs after a warm-up; HF timed from token lists to pooled "
             f"means on the host, TF32 off; seqfuse 'forward' is its own forward time, "
             f"'time' the whole process", "",
             "| config | time s | forward s | vs HF fp32 (forward) | worst cosine to HF fp32 | runs / summary |",
             "|---|---|---|---|---|---|"]
    for label, whole, forward, cos, note in rows:
        ratio = f"{hf_fp32 / forward:.2f}x" if forward else "n/a"
        fwd = f"{forward:.3f}" if forward else "n/a"
        lines.append(f"| {label} | {whole:.3f} | {fwd} | {ratio} | {cos:.6f} | {note} |")
    sf_best = min(r[2] for r in rows if r[0].startswith("seqfuse") and r[2])
    lines += ["", f"- seqfuse best forward vs HF best: {hf_best / sf_best:.2f}x; "
              f"vs HF fp32 best: {hf_fp32 / sf_best:.2f}x (issue #21 target: 3.6x HF fp32)"]
    page = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(page)
    print(page)


MODEL_NAME = {"bert": "ProtBERT", "t5": "ProtT5-XL encoder"}
HF_CLASS = {"bert": "BertModel", "t5": "T5EncoderModel"}
START = time.monotonic()
if __name__ == "__main__":
    try:
        main()
    except eb.BenchError as e:
        print(f"embed-bench-family: error: {e}", file=sys.stderr)
        sys.exit(2)
