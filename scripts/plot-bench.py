#!/usr/bin/env python3
"""Draws the README's performance chart from bench/results/summary.tsv.

One horizontal bar per workload x peer: how many times faster seqfuse ran
than that peer (peer_seconds / seqfuse_seconds, as the results file
recorded it: the speedup column is drawn, never recomputed, so the chart
says what the record says). Log-scale x, because the ratios span 3x to
over 100x.

Usage: scripts/plot-bench.py [--summary TSV] [--output SVG]
Needs python3-matplotlib (Debian); no network. The SVG is deterministic
(fixed hash salt, no date), so rerunning it on an unchanged summary gives
the same bytes and a diff of docs/img/performance.svg means the data moved.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display on CI machines
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import matplotlib.ticker  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COLUMNS = ["workload", "dataset", "peer", "peer_seconds", "seqfuse_seconds",
           "speedup", "machine", "date", "source"]


def read_summary(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f, delimiter="\t")
        if reader.fieldnames != COLUMNS:
            sys.exit(f"plot-bench: {path}: columns {reader.fieldnames}, expected {COLUMNS}")
        rows = list(reader)
    if not rows:
        sys.exit(f"plot-bench: {path} has no rows")
    return rows


def short_gpu(machine):
    # "NVIDIA H100 80GB HBM3" -> "H100": the bar labels stay one line.
    for word in machine.split():
        if word[:1] in "HABL" and any(c.isdigit() for c in word):
            return word
    return machine


def plot(rows, output):
    plt.rcParams["svg.hashsalt"] = "seqfuse"  # stable element ids
    plt.rcParams["svg.fonttype"] = "path"  # glyphs as paths: looks the same without the font
    plt.rcParams["font.family"] = "DejaVu Sans"

    # Top to bottom in the file's order: barh draws the first row lowest.
    rows = list(reversed(rows))
    labels = [f"{r['workload']} vs {r['peer']}\n{r['seqfuse_seconds']} s vs {r['peer_seconds']} s"
              f" ({short_gpu(r['machine'])})" for r in rows]
    speedups = [float(r["speedup"]) for r in rows]
    colours = {}
    palette = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d"]
    for r in reversed(rows):
        colours.setdefault(r["workload"], palette[len(colours) % len(palette)])

    fig, ax = plt.subplots(figsize=(10, 0.62 * len(rows) + 1.8))
    # Bars grow from 1x: right where seqfuse is faster, left where it is slower.
    bars = ax.barh(range(len(rows)), [s - 1 for s in speedups], left=1,
                   color=[colours[r["workload"]] for r in rows], height=0.65)
    ax.set_xscale("log")
    # Room right of the longest bar for its label (log axis: a factor, not a margin).
    ax.set_xlim(min(1, min(speedups) / 1.5), max(speedups) * 12)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=9)
    ax.set_xlabel("x faster than the peer (peer seconds / seqfuse seconds; log scale)")
    ax.axvline(1, color="black", linewidth=0.8)
    for bar, r, speedup in zip(bars, rows, speedups):
        words = "faster than" if speedup >= 1 else "the speed of"
        ax.text(max(speedup, 1) * 1.06, bar.get_y() + bar.get_height() / 2,
                f"{r['speedup']}x {words} {r['peer']}", va="center", fontsize=9)
    ax.grid(axis="x", which="major", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)

    machines = sorted({r["machine"] for r in rows})
    dates = sorted({r["date"] for r in rows})
    # Passes timed (embed) rather than whole processes, where a row's dataset says so.
    passes = sorted({r["workload"] for r in rows if "forward pass" in r["dataset"]})
    timed = "whole processes, medians" + (f" ({', '.join(passes)}: forward passes)" if passes else "")
    # Title and subtitle span the figure (left-aligned), not just the axes.
    fig.text(0.01, 0.985, "seqfuse against each peer, per workload", fontsize=12, va="top")
    fig.text(0.01, 0.935,
             f"seqfuse on one GPU ({', '.join(machines)}; 16 cores), each peer on the same "
             f"machine in the same run\n{timed}; recorded {dates[0]} to {dates[-1]}; "
             "each row's results file: bench/results/summary.tsv",
             fontsize=8, va="top", color="#333333")
    fig.tight_layout(rect=(0, 0, 1, 0.86))
    fig.savefig(output, format="svg", metadata={"Date": None})
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summary", default=os.path.join(ROOT, "bench", "results", "summary.tsv"))
    parser.add_argument("--output", default=os.path.join(ROOT, "docs", "img", "performance.svg"))
    args = parser.parse_args()
    rows = read_summary(args.summary)
    plot(rows, args.output)
    print(f"plot-bench: {len(rows)} bars -> {args.output}")


if __name__ == "__main__":
    main()
