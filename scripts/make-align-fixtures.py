#!/usr/bin/env python3
"""Writes the small real-data fixtures of tests/data/align/ (fixed seed).

Proteins: 50 queries from mmseqs2-examples' QUERY.fasta.gz and 50 targets from
its DB.fasta.gz (UniProt), sequences with letters outside Parasail's protein
alphabet (U, O, J) skipped, at most 1000 residues each.
DNA: pieces of the lambda phage genome from bowtie2-examples: 30 queries and
30 targets; half of the targets overlap a query's region (shifted, with a few
substitutions and indels) so that alignments are non-trivial.

Usage: apt-get install mmseqs2-examples bowtie2-examples && scripts/make-align-fixtures.py
"""
import gzip
import random
from pathlib import Path

MMSEQS = Path("/usr/share/doc/mmseqs2/example-data")
LAMBDA = Path("/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz")
OUT = Path(__file__).resolve().parent.parent / "tests/data/align"
PROTEIN_ALPHABET = set("ARNDCQEGHILKMFPSTWYVBZX*")


def read_fasta(path):
    name, parts = None, []
    with gzip.open(path, "rt") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    yield name, "".join(parts)
                name, parts = line[1:].split()[0], []
            elif line:
                parts.append(line)
    if name is not None:
        yield name, "".join(parts)


def sample_proteins(path, count, rng):
    usable = [(n, s) for n, s in read_fasta(path)
              if 0 < len(s) <= 1000 and set(s.upper()) <= PROTEIN_ALPHABET]
    return rng.sample(usable, count)


def mutate(seq, rng, rate=0.05):
    out = []
    for base in seq:
        roll = rng.random()
        if roll < rate * 0.6:
            out.append(rng.choice("ACGT"))
        elif roll < rate * 0.8:
            continue  # deletion
        elif roll < rate:
            out.append(base + rng.choice("ACGT"))  # insertion
        else:
            out.append(base)
    return "".join(out)


def write_fasta(path, records):
    with open(path, "w") as handle:
        for name, seq in records:
            handle.write(f">{name}\n{seq}\n")


def main():
    rng = random.Random(20261122)
    OUT.mkdir(parents=True, exist_ok=True)
    write_fasta(OUT / "proteins_queries.fa", sample_proteins(MMSEQS / "QUERY.fasta.gz", 50, rng))
    write_fasta(OUT / "proteins_targets.fa", sample_proteins(MMSEQS / "DB.fasta.gz", 50, rng))

    genome = next(read_fasta(LAMBDA))[1].upper()
    queries, targets = [], []
    for k in range(30):
        length = rng.randint(60, 500)
        start = rng.randrange(len(genome) - length)
        queries.append((f"lambda_q{k}_{start}_{length}", genome[start:start + length]))
        if k % 2 == 0:  # a target around the same region
            shift = rng.randint(-40, 40)
            t_start = min(max(0, start + shift), len(genome) - length)
            t_len = max(40, length + rng.randint(-60, 60))
            piece = genome[t_start:t_start + t_len]
            targets.append((f"lambda_t{k}_{t_start}_{t_len}_mut", mutate(piece, rng)))
        else:
            t_len = rng.randint(60, 500)
            t_start = rng.randrange(len(genome) - t_len)
            targets.append((f"lambda_t{k}_{t_start}_{t_len}", genome[t_start:t_start + t_len]))
    write_fasta(OUT / "lambda_queries.fa", queries)
    write_fasta(OUT / "lambda_targets.fa", targets)
    for f in sorted(OUT.glob("*.fa")):
        print(f, f.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
