#!/usr/bin/env python3
"""Writes the small k-mer edge inputs in tests/data/kmer/ (fixed seed).

edge.fa: N runs, IUPAC and other non-ACGT letters, lowercase, reads shorter
than k, an empty record, reverse-complement palindromes (even k), long
homopolymers, tandem repeats, and a record wrapped over many lines.
edge.fq: FASTQ reads with the same features, some CRLF line ends.
Usage: scripts/make-kmer-fixtures.py [OUT_DIR]
"""
import os
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data", "kmer")
rng = random.Random(20261122)
COMP = str.maketrans("ACGT", "TGCA")


def bases(n):
    return "".join(rng.choice("ACGT") for _ in range(n))


def revcomp(s):
    return s.translate(COMP)[::-1]


def mixed(n):
    """Random bases with N runs, IUPAC letters, lowercase, homopolymers, palindromes."""
    parts = []
    while sum(map(len, parts)) < n:
        r = rng.random()
        if r < 0.08:
            parts.append(rng.choice("NNNNnRYKMSWBDHVU.-*") * rng.randint(1, 5))
        elif r < 0.15:
            parts.append(rng.choice("ACGT") * rng.randint(10, 90))
        elif r < 0.25:
            half = bases(rng.randint(1, 40))
            parts.append(half + revcomp(half))
        elif r < 0.32 and parts:
            unit = parts[-1][-6:]
            parts.append(unit * rng.randint(2, 12))
        else:
            s = bases(rng.randint(5, 80))
            parts.append(s.lower() if rng.random() < 0.2 else s)
    return "".join(parts)[:n]


records = [
    ("short_1", "A"),
    ("short_14", bases(14)),
    ("empty", ""),
    ("lowercase", bases(150).lower()),
    ("n_runs", bases(40) + "NNNNN" + bases(70) + "n" + bases(64) + "NNNNNNNNNNNNNNNNNNNN" + bases(63)),
    ("homopolymers", "A" * 200 + "C" * 120 + "g" * 70 + "T" * 64 + "NA" + "A" * 63),
    ("palindromes", "".join((lambda h: h + revcomp(h))(bases(rng.randint(1, 40))) for _ in range(12))),
    ("iupac", "ACGTRYKMSWBDHVNACGTU" * 8 + bases(50)),
]
records += [(f"mixed_{i}", mixed(rng.randint(0, 600))) for i in range(60)]
wrapped = mixed(3000)

os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "edge.fa"), "w") as f:
    for name, seq in records:
        f.write(f">{name} edge case\n{seq}\n")
    f.write(">wrapped_60 one record over many lines\n")
    for i in range(0, len(wrapped), 60):
        f.write(wrapped[i:i + 60] + "\n")

with open(os.path.join(out, "edge.fq"), "w", newline="") as f:
    for i in range(150):
        seq = mixed(rng.randint(0, 250))
        end = "\r\n" if i % 7 == 0 else "\n"
        f.write(f"@read{i}{end}{seq}{end}+{end}{'I' * len(seq)}{end}")
