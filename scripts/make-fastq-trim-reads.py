#!/usr/bin/env python3
"""Simulated paired reads for fastq-trim's comparison with fastp
(tests/cli/fastq_trim_vs_fastp.sh): short inserts read into Illumina TruSeq
adapters, poly-G after the adapter as two-colour instruments give it, N runs,
poly-A tails, low-quality tails and whole low-quality reads, varied lengths.
Fixed seed: the same files on every machine.

Usage: make-fastq-trim-reads.py OUT_PREFIX PAIRS [SEED] [--nextseq|--edge]
Writes OUT_PREFIX_1.fq and OUT_PREFIX_2.fq; --nextseq names the reads as a
NextSeq does ("@NB...", so fastp turns poly-G trimming on); --edge writes
edge reads instead: lengths 0 to 151 around the windows and adapter
offsets, all N, all G, all A, adapter repeats, random qualities.
"""
import random
import sys

ADAPTER1 = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCACATCACGATCTCGTATGCCGTCTTCTGCTTG"
ADAPTER2 = "AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGTAGATCTCGGTGGTCGCCGTATCATTAAAAAA"
COMPLEMENT = str.maketrans("ACGTN", "TGCAN")


def revcomp(s):
    return s.translate(COMPLEMENT)[::-1]


def quality(rng, length, style):
    if style == "low":
        return "".join(chr(33 + rng.randint(2, 18)) for _ in range(length))
    q = []
    for i in range(length):
        base = 37 if i < length * 0.7 else 37 - int((i - length * 0.7) * 0.8)
        if style == "tail" and i > length * 0.8:
            base = 8
        q.append(chr(33 + max(2, min(41, base + rng.randint(-6, 3)))))
    return "".join(q)


def read(rng, fragment, adapter, length, two_colour):
    seq = (fragment + adapter)[:length]
    if len(seq) < length:
        seq += ("G" if two_colour else "A") * (length - len(seq))
    seq = list(seq)
    for i in range(len(seq)):
        if rng.random() < 0.01:
            seq[i] = rng.choice("ACGT")
    return "".join(seq)


def edge_reads(prefix, pairs, rng):
    with open(prefix + "_1.fq", "w") as f1, open(prefix + "_2.fq", "w") as f2:
        for n in range(pairs):
            for f in (f1, f2):
                length = rng.choice([0, 1, 2, 3, 4, 5, 8, 10, 15, 16, 31, 32, 33, 50, 151])
                kind = rng.randint(0, 5)
                if kind == 0:
                    seq = "N" * length
                elif kind == 1:
                    seq = "G" * length
                elif kind == 2:
                    seq = "A" * length
                elif kind == 3:
                    seq = (ADAPTER1 * 3)[:length]
                else:
                    seq = "".join(rng.choice("ACGTN") for _ in range(length))
                qual = "".join(chr(33 + rng.randint(0, 41)) for _ in range(length))
                f.write("@e%d\n%s\n+\n%s\n" % (n, seq, qual))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    nextseq = "--nextseq" in sys.argv
    prefix, pairs = args[0], int(args[1])
    rng = random.Random(int(args[2]) if len(args) > 2 else 7)
    if "--edge" in sys.argv:
        edge_reads(prefix, pairs, rng)
        return
    genome = "".join(rng.choice("ACGT") for _ in range(50000))
    with open(prefix + "_1.fq", "w") as f1, open(prefix + "_2.fq", "w") as f2:
        for n in range(pairs):
            length = 150 if rng.random() < 0.9 else rng.randint(1, 150)
            insert = rng.randint(20, 400) if rng.random() < 0.5 else rng.randint(151, 600)
            start = rng.randint(0, len(genome) - insert)
            fragment = genome[start:start + insert]
            r1 = read(rng, fragment, ADAPTER1, length, nextseq)
            r2 = read(rng, revcomp(fragment), ADAPTER2, length, nextseq)
            kind = rng.random()
            if kind < 0.05:  # an N run
                at = rng.randint(0, max(0, length - 8))
                r1 = r1[:at] + "N" * rng.randint(1, 8) + r1[at + 8:]
                r1 = r1[:length]
            elif kind < 0.10:  # a poly-A tail
                cut = rng.randint(length // 2, length)
                r2 = r2[:cut] + "A" * (length - cut)
            elif kind < 0.13:  # a low-complexity read
                r1 = ("AAAAAAAT" * length)[:length]
            styles = ["good"] * 8 + ["tail", "low"]
            q1 = quality(rng, len(r1), rng.choice(styles))
            q2 = quality(rng, len(r2), rng.choice(styles))
            if nextseq:
                name = "NB501234:77:HXXXXBGX3:1:11101:%d:%d" % (1000 + n, 2000 + n % 97)
                # Dual indexes: a few barcodes, some with a sequencing error.
                i1 = rng.choice(["ATCACG", "CGATGT", "TTAGGC", "TGACCA", "CGATGA"])
                i2 = rng.choice(["AGATCT", "GTCAAG", "AGATCA"])
                c1, c2 = " 1:N:0:%s+%s" % (i1, i2), " 2:N:0:%s+%s" % (i1, i2)
            else:
                name = "SIM_%d" % n
                c1, c2 = "/1", "/2"
            f1.write("@%s%s\n%s\n+\n%s\n" % (name, c1, r1, q1))
            f2.write("@%s%s\n%s\n+%s\n%s\n" % (name, c2, r2, "" if n % 3 else name, q2))


if __name__ == "__main__":
    main()
