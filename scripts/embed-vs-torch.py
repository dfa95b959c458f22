#!/usr/bin/env python3
"""transformers' EsmModel on the CPU against a `seqfuse embed` tsv (mean of the
final layer): worst cosine and relative error per sequence, and the time
torch takes, one sequence per forward pass (no padding), as seqfuse does.

    python3 scripts/embed-vs-torch.py MODEL_DIR PROTEINS.fa SEQFUSE.tsv THREADS
"""
import math
import sys
import time

import torch
from transformers import EsmModel

VOCAB = ["<cls>", "<pad>", "<eos>", "<unk>", "L", "A", "G", "V", "S", "E", "R", "T", "I", "D",
         "P", "K", "Q", "N", "F", "Y", "M", "H", "W", "C", "X", "B", "U", "Z", "O", ".", "-"]


def main():
    model_dir, fasta, tsv, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    torch.set_num_threads(threads)
    seqs = []
    for line in open(fasta):
        line = line.strip()
        if line.startswith(">"):
            seqs.append([line[1:].split()[0], ""])
        elif line:
            seqs[-1][1] += line.upper()
    ours = {}
    for line in open(tsv):
        fields = line.rstrip("\n").split("\t")
        ours[fields[0]] = [float(x) for x in fields[1:]]
    model = EsmModel.from_pretrained(model_dir, add_pooling_layer=False).eval().float()
    worst_cos, worst_rel, tokens = 1.0, 0.0, 0
    start = time.time()
    with torch.no_grad():
        for name, seq in seqs:
            ids = [0] + [VOCAB.index(c) if c in VOCAB[4:] else 3 for c in seq[:1022]] + [2]
            ids = torch.tensor([ids])
            tokens += ids.shape[1]
            hidden = model(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state
            mean = hidden[0, 1:-1].mean(0).double().tolist()
            other = ours[name]
            dot = sum(a * b for a, b in zip(mean, other))
            norm = math.sqrt(sum(a * a for a in mean))
            worst_cos = min(worst_cos, dot / (norm * math.sqrt(sum(b * b for b in other))))
            diff = math.sqrt(sum((a - b) ** 2 for a, b in zip(mean, other)))
            worst_rel = max(worst_rel, diff / norm)
    seconds = time.time() - start
    print(f"torch {torch.__version__} fp32 CPU, {threads} threads: {len(seqs)} sequences, "
          f"{tokens} tokens in {seconds:.2f} s ({len(seqs) / seconds:.1f} sequences/s, "
          f"{tokens / seconds:.0f} tokens/s); seqfuse's means: worst cosine {worst_cos:.12f}, "
          f"worst relative error {worst_rel:.2e}")


if __name__ == "__main__":
    main()
