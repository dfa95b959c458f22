#!/usr/bin/env python3
"""`seqfuse embed` against Hugging Face transformers' EsmModel, side by side in
one call on the GPU machine (issue #5, "Performance").

    python3 scripts/embed-bench.py --seqfuse bundle/bin/seqfuse \
        --proteins bundle/data/mmseqs_DB.fasta.gz --count 2000 --models 8M,35M \
        --out $OUT/embed-bench.md

For each model size: a random-weight checkpoint of the real ESM-2 shape
(transformers' EsmConfig + EsmModel, fixed seed, saved with save_pretrained in
fp32 into a temporary folder); the first --count proteins of the FASTA cut to
--max-length residues and written to one FASTA that both sides read; then
  HF (a)  fp32, eager attention, input order, padded batches of --hf-tokens
  HF (b)  bf16, batches sorted by length, eager and sdpa, each --hf-sorted-tokens
  seqfuse embed --device gpu --dtype fp32|bf16 --format npy, each --tpb
and the worst per-sequence cosine of every mean embedding against HF (a).
The page (markdown) goes to --out and to stdout; progress lines go to stderr.

Needs python3 with torch and transformers for the HF side; --dry-run needs
neither: it reads the FASTA, writes the cut set, prints the plan and renders
the page (HF rows "not run"; with --model-dir it also runs seqfuse, e.g. on
the CPU with --seqfuse-device cpu, to check that path without a GPU).
"""
import argparse
import ast
import array
import datetime
import gzip
import os
import re
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

# ESM-2's 33 tokens (src/models/tokenizer.cpp): single letters map to their
# id (lowercase read as uppercase), everything else is <unk>.
VOCAB = ["<cls>", "<pad>", "<eos>", "<unk>", "L", "A", "G", "V", "S", "E", "R", "T",
         "I", "D", "P", "K", "Q", "N", "F", "Y", "M", "H", "W", "C", "X", "B", "U",
         "Z", "O", ".", "-", "<null_1>", "<mask>"]
CLS, PAD, EOS, UNK = 0, 1, 2, 3
LETTER_TOKEN = {t: i for i, t in enumerate(VOCAB) if len(t) == 1}

# name -> (hub name, layers, hidden, heads, intermediate)
MODELS = {
    "8M": ("esm2_t6_8M_UR50D", 6, 320, 20, 1280),
    "35M": ("esm2_t12_35M_UR50D", 12, 480, 20, 1920),
    "150M": ("esm2_t30_150M_UR50D", 30, 640, 20, 2560),
    "650M": ("esm2_t33_650M_UR50D", 33, 1280, 20, 5120),
    "3B": ("esm2_t36_3B_UR50D", 36, 2560, 40, 10240),
}

START = time.monotonic()


class BenchError(Exception):
    """A problem worth one clear line and a non-zero exit."""


def log(message):
    now = datetime.datetime.now().strftime("%H:%M:%S")
    print(f"[embed-bench {now} +{time.monotonic() - START:6.1f}s] {message}",
          file=sys.stderr, flush=True)


# ---------------------------------------------------------------- input

def open_text(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="ascii", errors="replace")
    return open(path, "r", encoding="ascii", errors="replace")


def read_fasta(path, count):
    """The first `count` records as (id, sequence), sequences uppercased."""
    records = []
    name, parts = None, []
    with open_text(path) as f:
        for line in f:
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(parts).upper()))
                    if len(records) >= count:
                        return records
                name, parts = (line[1:].split() or [""])[0], []
            elif name is not None:
                parts.append("".join(line.split()))
    if name is not None and len(records) < count:
        records.append((name, "".join(parts).upper()))
    return records


def tokenize(sequence):
    return [CLS] + [LETTER_TOKEN.get(c, UNK) for c in sequence] + [EOS]


class ProteinSet:
    """The proteins both sides embed: cut to max_length, under ids s00000...
    (so seqfuse's ids file is easy to check), written to one FASTA."""

    def __init__(self, records, max_length):
        self.source_ids, self.sequences, self.skipped = [], [], []
        self.cut = 0
        for name, seq in records:
            tokens = tokenize(seq[:max_length])
            if not seq or all(t == UNK for t in tokens[1:-1]):
                self.skipped.append(name)  # seqfuse refuses these (one-line error)
                continue
            self.cut += len(seq) > max_length
            self.source_ids.append(name)
            self.sequences.append(seq[:max_length])
        self.ids = [f"s{i:05d}" for i in range(len(self.sequences))]
        self.tokens = [tokenize(s) for s in self.sequences]
        self.lengths = [len(t) for t in self.tokens]  # with BOS and EOS
        self.total_tokens = sum(self.lengths)
        self.unknown = sum(t.count(UNK) for t in self.tokens)

    def __len__(self):
        return len(self.sequences)

    def write_fasta(self, path):
        with open(path, "w") as f:
            for i, s in zip(self.ids, self.sequences):
                f.write(f">{i}\n{s}\n")

    def summary(self):
        n = len(self)
        residues = self.total_tokens - 2 * n
        return (f"{n} proteins, mean length {residues / max(n, 1):.0f} residues, "
                f"{self.total_tokens} tokens with BOS/EOS, {self.cut} cut to --max-length, "
                f"{self.unknown} <unk> tokens"
                + (f", {len(self.skipped)} skipped (empty or all <unk>)" if self.skipped else ""))


def padded_batches(lengths, order, budget):
    """Index lists in `order`; a batch holds sequences while its padded size
    (count x longest) stays within `budget` tokens (at least one sequence)."""
    batches, current, longest = [], [], 0
    for i in order:
        n = lengths[i]
        if current and max(longest, n) * (len(current) + 1) > budget:
            batches.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, n)
    if current:
        batches.append(current)
    return batches


# ---------------------------------------------------------------- npy output

def read_npy_f32(path):
    """(rows, cols, array('f')) of a 2-D little-endian float32 .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise BenchError(f"{path} is not a .npy file")
    major = data[6]
    if major == 1:
        (hlen,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    if header.get("descr") != "<f4" or header.get("fortran_order") or len(header["shape"]) != 2:
        raise BenchError(f"{path}: expected a C-order <f4 matrix, header says {header}")
    rows, cols = header["shape"]
    values = array.array("f")
    values.frombytes(data[start + hlen:start + hlen + 4 * rows * cols])
    if sys.byteorder != "little":
        values.byteswap()
    if len(values) != rows * cols:
        raise BenchError(f"{path}: {len(values)} floats, header says {rows} x {cols}")
    return rows, cols, values


def npy_ids_path(npy_path):
    base = npy_path[:-4] if npy_path.endswith(".npy") else npy_path
    return base + ".ids.txt"


def load_seqfuse_output(npy_path, expected_ids, hidden):
    rows, cols, values = read_npy_f32(npy_path)
    with open(npy_ids_path(npy_path)) as f:
        ids = [line.rstrip("\n") for line in f]
    if ids != expected_ids:
        bad = next((k for k, (a, b) in enumerate(zip(ids, expected_ids)) if a != b), None)
        raise BenchError(f"{npy_ids_path(npy_path)}: {len(ids)} ids, expected "
                         f"{len(expected_ids)} in input order (first difference at row {bad})")
    if rows != len(expected_ids) or (hidden and cols != hidden):
        raise BenchError(f"{npy_path}: shape {rows} x {cols}, expected "
                         f"{len(expected_ids)} x {hidden}")
    return rows, cols, values


# ---------------------------------------------------------------- GPU memory

class GpuMemoryMonitor:
    """Samples `nvidia-smi --query-gpu=memory.used` every ~20 ms: one
    long-running nvidia-smi (-lms 20) read by a thread, or, when that yields
    nothing, a thread that runs nvidia-smi once per sample."""

    def __init__(self, gpu_index=0, interval_ms=20):
        self.samples = []  # (monotonic time, MiB)
        self.lock = threading.Lock()
        self.proc = None
        self.error = None
        self.method = "none"
        self.stopped = False
        self.exe = shutil.which("nvidia-smi")
        self.query = ["-i", str(gpu_index), "--query-gpu=memory.used",
                      "--format=csv,noheader,nounits"]
        self.interval_s = interval_ms / 1000
        if not self.exe:
            self.error = "nvidia-smi not found"
            return
        try:
            self.proc = subprocess.Popen([self.exe] + self.query + ["-lms", str(interval_ms)],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         text=True, bufsize=1)
        except OSError as e:
            self.error = f"nvidia-smi: {e}"
            return
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len(self.samples) < 3 and self.proc.poll() is None:
            time.sleep(0.05)
        if len(self.samples) >= 3:
            self.method = f"one `nvidia-smi -lms {interval_ms}`"
            return
        self.stop()  # no stream: poll instead
        self.stopped = False
        self.proc = None
        first = self._sample()
        if first is None:
            self.error = "nvidia-smi --query-gpu=memory.used gives no number"
            return
        threading.Thread(target=self._poll, daemon=True).start()
        self.method = f"nvidia-smi run every {interval_ms} ms"

    def _sample(self):
        try:
            p = subprocess.run([self.exe] + self.query, capture_output=True, text=True,
                               timeout=10)
            value = int(p.stdout.strip().splitlines()[0].split()[0])
        except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
            return None
        with self.lock:
            self.samples.append((time.monotonic(), value))
        return value

    def _poll(self):
        while not self.stopped:
            self._sample()
            time.sleep(self.interval_s)

    def _read(self):
        for line in self.proc.stdout:
            try:
                value = int(line.strip().split()[0])
            except (ValueError, IndexError):
                continue
            with self.lock:
                self.samples.append((time.monotonic(), value))

    def available(self):
        if self.error or self.stopped:
            return False
        return self.proc is None or self.proc.poll() is None

    def values(self, t0, t1):
        with self.lock:
            return [v for t, v in self.samples if t0 <= t <= t1]

    def baseline(self, settle_s=0.3):
        """Idle memory.used: the smallest sample over settle_s from now."""
        if not self.available():
            return None
        t0 = time.monotonic()
        time.sleep(settle_s)
        got = self.values(t0, time.monotonic())
        return min(got) if got else None

    def stop(self):
        self.stopped = True
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


# ---------------------------------------------------------------- results

class Row:
    def __init__(self, side, label, dtype):
        self.side, self.label, self.dtype = side, label, dtype
        self.seconds = None      # the timed figure (HF: one pass; seqfuse: median)
        self.all_seconds = []
        # seqfuse: its own forward-pass time (batches through the engine,
        # results back; no start-up, model load or FASTA read), median over
        # the runs, from the summary line. HF's timed pass is the same span.
        self.forward_seconds = None
        self.all_forward = []
        self.peak_mib = None
        self.worst_cos = None
        self.note = ""
        self.error = None
        self.command = None
        self.best = False

    def rate(self, amount):
        return amount / self.seconds if self.seconds else None

    def forward(self):
        return self.forward_seconds if self.side == "seqfuse" else self.seconds


def fmt_num(value, digits=0):
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}"


def fmt_cos(value):
    if value is None:
        return "n/a"
    if value >= 1.0:
        return "1"
    return f"{value:.6f}" if value < 0.999999 else f"1 - {1 - value:.1e}"


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def best_row(rows, pick):
    ok = [r for r in rows if pick(r) and r.seconds and not r.error]
    return min(ok, key=lambda r: r.seconds) if ok else None


def ratio_line(name, top, bottom, target=None, forward=False):
    if not top or not bottom:
        return f"- {name}: n/a (a side did not run)"
    top_s, bottom_s = (top.forward(), bottom.forward()) if forward else (top.seconds,
                                                                         bottom.seconds)
    if not top_s or not bottom_s:
        return f"- {name}: n/a (no forward time)"
    text = f"- {name}: **{bottom_s / top_s:.1f}x** ({top.label} vs {bottom.label})"
    return text + (f"; target {target}" if target else "")


def render_page(meta, model_results):
    out = [f"# `seqfuse embed` vs Hugging Face EsmModel ({meta['gpu']})", ""]
    if meta.get("dry_run"):
        out += ["**DRY RUN: nothing was timed; the HF rows did not run.**", ""]
    out += [f"- date: {meta['date']}",
            f"- machine: {meta['gpu']}; {meta['machine']}",
            f"- software: {meta['software']}",
            f"- seqfuse: {meta['seqfuse_version']}",
            f"- input: {meta['input']}",
            f"- weights: {meta['weights']}",
            f"- command: `{meta['command']}`",
            f"- script time: {meta['elapsed']}",
            "",
            "Method. HF: transformers' `EsmModel` (add_pooling_layer=False) loaded from "
            "the same checkpoint folder, on cuda, inside `torch.inference_mode()`; "
            "TF32 off for fp32; one warm-up forward on the largest batch, then one timed "
            "pass over all batches between `torch.cuda.synchronize()` calls: building the "
            "padded id/attention-mask tensors from token lists, upload, forward, mean over "
            "residues (BOS, EOS and padding excluded) in fp32, download. Peak memory = "
            "`torch.cuda.max_memory_allocated` (weights included, CUDA context not), reset "
            "per config. seqfuse: the whole process by wall clock (start-up, CUDA context, "
            "model load, FASTA read, forward, npy write), "
            f"{meta['warmup']} warm-up run(s) then the median of {meta['runs']}; peak memory = "
            "highest `nvidia-smi --query-gpu=memory.used` sample during its runs "
            f"(sampled every ~20 ms by {meta['memory_method']}) minus the lowest sample in "
            "the 0.3 s just before, with this script's own CUDA memory held constant (so "
            "it includes seqfuse's CUDA context). Tokens/s counts real tokens "
            "(residues + BOS + EOS), not padding. Cosine: per sequence, seqfuse's mean "
            "embedding (npy + ids file, input order) against HF fp32's; the worst is shown.",
            ""]
    for m in model_results:
        out += [f"## {m['name']} ({m['shape']})", ""]
        if m.get("error"):
            out += [f"Not measured: {m['error']}", ""]
            continue
        out += ["| config | time s | seq/s | tokens/s | forward s | forward seq/s | peak MiB | "
                f"worst cosine vs {m.get('reference') or 'HF fp32'} |",
                "|---|---:|---:|---:|---:|---:|---:|---:|"]
        n, tokens = m["sequences"], m["tokens"]
        for r in m["rows"]:
            label = r.label + (" **(best)**" if r.best else "")
            if r.error:
                out.append(f"| {label} | failed: {cell(r.error)} | | | | | | |")
                continue
            fwd = r.forward()
            out.append(f"| {label} | {fmt_num(r.seconds, 3)} | {fmt_num(r.rate(n))} | "
                       f"{fmt_num(r.rate(tokens))} | {fmt_num(fwd, 3)} | "
                       f"{fmt_num(n / fwd if fwd else None)} | {fmt_num(r.peak_mib)} | "
                       f"{fmt_cos(r.worst_cos)} |")
        first = m["rows"][0] if m["rows"] else None
        hf_ref = first if first and first.side == "hf" and first.dtype == "fp32" else None
        hf_ref = hf_ref if hf_ref and hf_ref.seconds and not hf_ref.error else None
        hf_best = best_row(m["rows"], lambda r: r.side == "hf")
        sf_fp32 = best_row(m["rows"], lambda r: r.side == "seqfuse" and r.dtype == "fp32")
        sf_best = best_row(m["rows"], lambda r: r.side == "seqfuse")
        out += ["", "Ratios (sequences/s):",
                ratio_line("seqfuse fp32 / HF fp32 unsorted", sf_fp32, hf_ref),
                ratio_line("seqfuse best / HF fp32 unsorted", sf_best, hf_ref,
                           "43x for 8M" if m["name"] == "8M" else None),
                ratio_line("seqfuse best / HF best", sf_best, hf_best, "5x"),
                "",
                "Forward pass only (seqfuse's own forward time against HF's timed pass, "
                "both without start-up and model load):",
                ratio_line("seqfuse best / HF fp32 unsorted", sf_best, hf_ref,
                           "43x for 8M" if m["name"] == "8M" else None, forward=True),
                ratio_line("seqfuse best / HF best", sf_best, hf_best, "5x", forward=True),
                ""]
        notes = [r for r in m["rows"] if r.note]
        if notes:
            out += ["Notes:", ""] + [f"- {r.label}: {r.note}" for r in notes] + [""]
        commands = [r for r in m["rows"] if r.command]
        if commands:
            out += ["seqfuse commands:", "", "```"] + [r.command for r in commands] + ["```", ""]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- seqfuse

def seqfuse_version(exe):
    try:
        p = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        text = (p.stdout or p.stderr).strip().splitlines()
        version = text[0] if text else f"exit {p.returncode}"
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BenchError(f"cannot run {exe}: {e}")
    info = os.path.join(os.path.dirname(os.path.abspath(exe)), "..", "BUILD_INFO")
    if os.path.exists(info):
        with open(info) as f:
            commit = [l.strip() for l in f if l.startswith("commit=")]
        version += f" ({commit[0]})" if commit else ""
    return version


def summary_line(stderr):
    lines = [l for l in stderr.splitlines() if l.startswith("seqfuse embed:")
             and "warning" not in l]
    return lines[-1] if lines else ""


def forward_rate(summary):
    """Sequences/s of the forward pass from seqfuse's summary line
    ("... (forward 5.42 ksequences/s, ...")."""
    m = re.search(r"forward ([0-9.]+) ?([kMG]?)sequences/s", summary)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "no message"


def run_seqfuse(args, model_dir, fasta, work, dtype, tpb, proteins, hidden, monitor,
                before_run):
    label = f"seqfuse {dtype}, --toks-per-batch {tpb or 'default'}"
    row = Row("seqfuse", label, dtype)
    out_npy = os.path.join(work, f"seqfuse-{dtype}-{tpb or 'default'}.npy")
    cmd = [args.seqfuse, "embed", "--model", model_dir, "--device", args.seqfuse_device,
           "--dtype", dtype, "--format", "npy", "-o", out_npy]
    if tpb:
        cmd += ["--toks-per-batch", str(tpb)]
    cmd.append(fasta)
    row.command = shlex.join(cmd)
    before_run()
    base = monitor.baseline() if monitor else None
    t_first = time.monotonic()
    stderr = ""
    for k in range(args.warmup + args.runs):
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, timeout=args.seqfuse_timeout)
        except subprocess.TimeoutExpired:
            row.error = f"timed out after {args.seqfuse_timeout} s"
            log(f"  {label}: FAILED ({row.error})")
            return row, None
        seconds = time.perf_counter() - t0
        if p.returncode != 0:
            row.error = f"exit {p.returncode}: {last_line(p.stderr)}"
            log(f"  {label}: FAILED ({row.error})")
            return row, None
        stderr = p.stderr
        if k >= args.warmup:
            row.all_seconds.append(seconds)
            rate = forward_rate(summary_line(stderr))
            if rate:
                row.all_forward.append(len(proteins) / rate)
    t_last = time.monotonic()
    row.seconds = statistics.median(row.all_seconds)
    if row.all_forward:
        row.forward_seconds = statistics.median(row.all_forward)
    if base is not None:
        peak = monitor.values(t_first, t_last + 0.05)
        row.peak_mib = max(peak) - base if peak else None
    runs = ", ".join(f"{s:.3f}" for s in row.all_seconds)
    row.note = f"runs {runs} s; its summary: `{summary_line(stderr)}`"
    log(f"  {label}: median {row.seconds:.3f} s ({len(proteins) / row.seconds:,.0f} seq/s), "
        f"peak {fmt_num(row.peak_mib)} MiB")
    try:
        output = load_seqfuse_output(out_npy, proteins.ids, hidden)
    except (BenchError, OSError) as e:
        row.error = f"output check: {e}"
        return row, None
    return row, output


# ---------------------------------------------------------------- HF (torch)

def import_torch():
    try:
        import torch
        import transformers
        from transformers import EsmConfig, EsmModel
    except ImportError as e:
        raise BenchError(f"python3 cannot import torch/transformers ({e}); the HF side needs "
                         "them (use --dry-run to check the rest)")
    return torch, transformers, EsmConfig, EsmModel


def randomize_weights(torch, model, seed):
    """Weights of unit gain so every term shows in the output (the default
    init's 0.02 spread leaves the layers nearly idle): linear weights
    N(0, 1/fan_in), embeddings N(0, 1), LayerNorm gains 1 + N(0, 0.1) and
    biases N(0, 0.1), other biases N(0, 0.02)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if "LayerNorm" in name or "layer_norm" in name:
                p.copy_(noise * 0.1 + (0.0 if name.endswith(("bias", "beta")) else 1.0))
            elif name.endswith("bias"):
                p.copy_(noise * 0.02)
            elif p.dim() == 2 and "embeddings" in name:
                p.copy_(noise)
            elif p.dim() == 2:
                p.copy_(noise / p.shape[1] ** 0.5)


def build_checkpoint(hf, name, folder, seed, init):
    torch, _, EsmConfig, EsmModel = hf
    _, layers, hidden, heads, inter = MODELS[name]
    torch.manual_seed(seed)
    config = EsmConfig(vocab_size=33, mask_token_id=32, pad_token_id=1,
                       hidden_size=hidden, num_hidden_layers=layers,
                       num_attention_heads=heads, intermediate_size=inter,
                       hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                       max_position_embeddings=1026, position_embedding_type="rotary",
                       token_dropout=True, emb_layer_norm_before=False,
                       layer_norm_eps=1e-5, hidden_act="gelu", is_folding_model=False)
    model = EsmModel(config, add_pooling_layer=False).eval().float()
    if init == "scaled":
        randomize_weights(torch, model, seed)
    model.save_pretrained(folder, safe_serialization=True)
    params = sum(p.numel() for p in model.parameters())
    del model
    if not os.path.exists(os.path.join(folder, "model.safetensors")):
        raise BenchError(f"save_pretrained wrote no model.safetensors in {folder}: "
                         f"{sorted(os.listdir(folder))}")
    return params


def load_hf(hf, folder, attn, dtype):
    torch, _, _, EsmModel = hf
    model = EsmModel.from_pretrained(folder, add_pooling_layer=False, attn_implementation=attn)
    return model.eval().to(device="cuda", dtype=dtype)


def hf_pass(hf, model, proteins, batches, hidden, pooled_out):
    """Embeds every batch; mean over residues into pooled_out (cuda, fp32)."""
    torch = hf[0]
    for batch in batches:
        width = max(proteins.lengths[i] for i in batch)
        ids = [proteins.tokens[i] + [PAD] * (width - proteins.lengths[i]) for i in batch]
        mask = [[1] * proteins.lengths[i] + [0] * (width - proteins.lengths[i]) for i in batch]
        ids_t = torch.tensor(ids, dtype=torch.long).to("cuda", non_blocking=True)
        mask_t = torch.tensor(mask, dtype=torch.long).to("cuda", non_blocking=True)
        hidden_states = model(input_ids=ids_t, attention_mask=mask_t).last_hidden_state
        residues = mask_t.clone()
        residues[:, 0] = 0
        lengths = mask_t.sum(1)
        residues[torch.arange(len(batch), device="cuda"), lengths - 1] = 0
        weights = residues.unsqueeze(-1).float()
        means = (hidden_states.float() * weights).sum(1) / weights.sum(1)
        pooled_out[torch.tensor(batch, device="cuda")] = means


def hf_config(hf, model, proteins, batches, hidden, label, dtype):
    """One HF config: warm-up on the largest batch, one timed pass."""
    torch = hf[0]
    row = Row("hf", label, dtype)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    largest = max(batches, key=lambda b: len(b) * max(proteins.lengths[i] for i in b))
    with torch.inference_mode():
        pooled = torch.zeros(len(proteins), hidden, dtype=torch.float32, device="cuda")
        hf_pass(hf, model, proteins, [largest], hidden, pooled)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        hf_pass(hf, model, proteins, batches, hidden, pooled)
        result = pooled.cpu()
        torch.cuda.synchronize()
        row.seconds = time.perf_counter() - t0
    row.peak_mib = torch.cuda.max_memory_allocated() / 2**20
    row.note = f"{len(batches)} batches"
    log(f"  {label}: {row.seconds:.3f} s ({len(proteins) / row.seconds:,.0f} seq/s), "
        f"peak {row.peak_mib:,.0f} MiB, {len(batches)} batches")
    return row, result


def worst_cosine(torch, reference, other):
    """The smallest per-row cosine of two [sequences x hidden] CPU tensors."""
    with torch.inference_mode():
        a, b = reference.double(), other.double()
        cos = (a * b).sum(1) / (a.norm(dim=1) * b.norm(dim=1)).clamp_min(1e-300)
        return float(cos.min())


def attn_in_use(model):
    return str(getattr(model.config, "_attn_implementation", None) or "unknown")


def bench_hf(hf, args, folder, proteins, hidden):
    """The HF rows, the reference's means and its label. The first row is the
    fp32 reference; with --no-hf-fp32 (3B: its fp32 pass alone would take
    minutes) the first bf16 configuration that runs is the reference."""
    torch = hf[0]
    rows = []
    order = list(range(len(proteins)))
    by_length = sorted(order, key=lambda i: -proteins.lengths[i])
    reference, reference_label = None, None
    if args.hf_fp32:
        model = load_hf(hf, folder, "eager", torch.float32)
        ref_row, reference = hf_config(
            hf, model, proteins, padded_batches(proteins.lengths, order, args.hf_tokens), hidden,
            f"HF fp32 eager, unsorted, {args.hf_tokens}-token batches (reference)", "fp32")
        ref_row.note += f"; attention in use: {attn_in_use(model)}"
        ref_row.worst_cos = 1.0
        rows.append(ref_row)
        reference_label = "HF fp32"
    for attn in args.hf_attn:
        model = None
        torch.cuda.empty_cache()
        try:
            model = load_hf(hf, folder, attn, torch.bfloat16)
        except Exception as e:  # an attention kind this transformers lacks
            row = Row("hf", f"HF bf16 {attn}", "bf16")
            row.error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            log(f"  HF bf16 {attn}: FAILED to load ({row.error})")
            rows.append(row)
            continue
        for budget in args.hf_sorted_tokens:
            label = f"HF bf16 {attn}, sorted, {budget}-token batches"
            try:
                row, means = hf_config(hf, model, proteins,
                                       padded_batches(proteins.lengths, by_length, budget),
                                       hidden, label, "bf16")
                if reference is None:
                    reference, reference_label = means, label
                row.worst_cos = worst_cosine(torch, reference, means)
                row.note += f"; attention in use: {attn_in_use(model)}"
            except torch.cuda.OutOfMemoryError:
                row = Row("hf", label, "bf16")
                row.error = "CUDA out of memory"
                log(f"  {label}: FAILED (CUDA out of memory)")
                torch.cuda.empty_cache()
            rows.append(row)
    model = None
    torch.cuda.empty_cache()
    return rows, reference, reference_label


def bench_model(name, args, hf, proteins, fasta, monitor):
    hub, layers, hidden, heads, inter = MODELS[name]
    result = {"name": name, "rows": [], "sequences": len(proteins),
              "tokens": proteins.total_tokens,
              "shape": f"{hub} shape: {layers} layers, hidden {hidden}, {heads} heads, "
                       f"intermediate {inter}"}
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    folder = args.model_dir or os.path.join(work, "model")
    reference = None
    torch = hf[0] if hf else None
    if not args.model_dir and not args.dry_run:
        log(f"{name}: building a random {hub}-shaped checkpoint in {folder}")
        params = build_checkpoint(hf, name, folder, args.seed, args.init)
        log(f"{name}: {params / 1e6:.1f} M parameters saved")
    if hf:
        log(f"{name}: HF runs")
        hf_rows, reference, result["reference"] = bench_hf(hf, args, folder, proteins, hidden)
        result["rows"] += hf_rows
    else:
        result["rows"].append(Row("hf", "HF (not run: dry run)", "fp32"))
        result["rows"][-1].error = "not run (dry run)"

    def before_run():
        if torch is not None:
            torch.cuda.empty_cache()

    if args.dry_run and not args.model_dir:
        log(f"{name}: seqfuse not run (dry run without --model-dir)")
        return result
    log(f"{name}: seqfuse runs ({args.warmup} warm-up + {args.runs} timed each)")
    for dtype in args.dtypes:
        for tpb in args.tpb:
            row, output = run_seqfuse(args, folder, fasta, work, dtype, tpb, proteins,
                                      None if args.model_dir else hidden, monitor, before_run)
            if output is not None and reference is not None:
                rows, cols, values = output
                ours = torch.frombuffer(bytearray(values.tobytes()), dtype=torch.float32)
                row.worst_cos = worst_cosine(torch, reference, ours.reshape(rows, cols))
            elif output is not None:
                row.note += f"; output {output[0]} x {output[1]}, ids in input order"
            result["rows"].append(row)
    hf_best = best_row(result["rows"], lambda r: r.side == "hf")
    sf_best = best_row(result["rows"], lambda r: r.side == "seqfuse")
    for r in (hf_best, sf_best):
        if r:
            r.best = True
    return result


# ---------------------------------------------------------------- main

def parse_list(text, convert=str):
    return [convert(x.strip()) for x in text.split(",") if x.strip()]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seqfuse", required=True, help="the seqfuse program")
    p.add_argument("--proteins", required=True, help="protein FASTA (gzip ok)")
    p.add_argument("--count", type=int, default=2000, help="first N records (default 2000)")
    p.add_argument("--models", default="8M,35M", help="of 8M,35M,150M,650M,3B (default 8M,35M)")
    p.add_argument("--out", help="write the markdown page here too")
    p.add_argument("--work", help="work folder (default: a temporary one, removed)")
    p.add_argument("--max-length", type=int, default=1022, help="residues kept (default 1022)")
    p.add_argument("--seed", type=int, default=20261122)
    p.add_argument("--init", choices=["scaled", "hf"], default="scaled",
                   help="random weights: unit-gain (default) or transformers' own init")
    p.add_argument("--runs", type=int, default=3, help="timed seqfuse runs (median)")
    p.add_argument("--warmup", type=int, default=1, help="seqfuse warm-up runs")
    p.add_argument("--dtypes", default="fp32,bf16", help="seqfuse --dtype values")
    p.add_argument("--tpb", default="default,16384",
                   help="seqfuse --toks-per-batch values ('default' = its own)")
    p.add_argument("--hf-tokens", type=int, default=4096,
                   help="padded tokens per HF fp32 unsorted batch (default 4096)")
    p.add_argument("--hf-sorted-tokens", default="4096,16384",
                   help="padded tokens per HF bf16 sorted batch, each tried")
    p.add_argument("--hf-attn", default="sdpa,eager", help="HF bf16 attention kinds tried")
    p.add_argument("--no-hf-fp32", dest="hf_fp32", action="store_false",
                   help="skip HF's fp32 reference pass; cosines are then against the first "
                        "HF bf16 configuration")
    p.add_argument("--seqfuse-device", default="gpu", help="seqfuse --device (default gpu)")
    p.add_argument("--seqfuse-timeout", type=int, default=300)
    p.add_argument("--model-dir", help="with --dry-run: run seqfuse on this checkpoint "
                   "(e.g. a tests/data/embed fixture) to check that path without torch")
    p.add_argument("--dry-run", action="store_true",
                   help="no torch: prepare the input, print the plan, render the page")
    args = p.parse_args(argv)
    args.models = parse_list(args.models)
    for m in args.models:
        if m not in MODELS:
            p.error(f"--models: unknown size '{m}' (choose from {', '.join(MODELS)})")
    args.dtypes = parse_list(args.dtypes)
    args.tpb = [None if t == "default" else int(t) for t in parse_list(args.tpb)]
    args.hf_sorted_tokens = parse_list(args.hf_sorted_tokens, int)
    args.hf_attn = parse_list(args.hf_attn)
    if args.model_dir and not args.dry_run:
        p.error("--model-dir is for checking the script: use it with --dry-run")
    if args.count < 1 or args.runs < 1 or args.warmup < 0:
        p.error("--count and --runs must be 1 or more, --warmup 0 or more")
    return args


def machine_line():
    parts = [f"{os.cpu_count()} CPU cores"]
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        if p.returncode == 0 and p.stdout.strip():
            parts.append("nvidia-smi: " + p.stdout.strip().splitlines()[0])
    except (OSError, subprocess.TimeoutExpired):
        pass
    return "; ".join(parts)


def print_plan(args, proteins):
    log(f"plan: models {', '.join(args.models)}; " + proteins.summary())
    order = list(range(len(proteins)))
    by_length = sorted(order, key=lambda i: -proteins.lengths[i])
    unsorted = padded_batches(proteins.lengths, order, args.hf_tokens)
    log(f"plan: HF fp32 eager unsorted: {len(unsorted)} batches of <= {args.hf_tokens} padded "
        f"tokens ({sum(len(b) * max(proteins.lengths[i] for i in b) for b in unsorted)} padded "
        f"tokens for {proteins.total_tokens} real)")
    for budget in args.hf_sorted_tokens:
        log(f"plan: HF bf16 {'/'.join(args.hf_attn)} sorted: "
            f"{len(padded_batches(proteins.lengths, by_length, budget))} batches of <= {budget}")
    tpbs = ", ".join(str(t or "default") for t in args.tpb)
    log(f"plan: seqfuse --dtype {'/'.join(args.dtypes)} x --toks-per-batch {tpbs}: "
        f"{args.warmup} warm-up + {args.runs} timed runs each")


def main(argv):
    args = parse_args(argv)
    if not os.access(args.seqfuse, os.X_OK):
        raise BenchError(f"--seqfuse {args.seqfuse} is not an executable file")
    if not os.path.exists(args.proteins):
        raise BenchError(f"--proteins {args.proteins} does not exist")
    args.seqfuse = os.path.abspath(args.seqfuse)
    keep_work = bool(args.work)
    args.work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="embed-bench-")
    os.makedirs(args.work, exist_ok=True)
    if args.model_dir:
        args.model_dir = os.path.abspath(args.model_dir)
    monitor = None
    try:
        hf = None
        if not args.dry_run:
            hf = import_torch()
            if not hf[0].cuda.is_available():
                raise BenchError("torch sees no CUDA device")
            hf[0].backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32, not TF32
            hf[0].backends.cudnn.allow_tf32 = False
            hf[0].set_float32_matmul_precision("highest")
        records = read_fasta(args.proteins, args.count)
        if not records:
            raise BenchError(f"{args.proteins} has no FASTA records")
        proteins = ProteinSet(records, args.max_length)
        if not len(proteins):
            raise BenchError(f"{args.proteins}: no usable protein among the first {args.count}")
        fasta = os.path.join(args.work, "proteins.fa")
        proteins.write_fasta(fasta)
        log(f"input: {fasta}")
        print_plan(args, proteins)
        version = seqfuse_version(args.seqfuse)
        monitor = GpuMemoryMonitor()
        if monitor.error:
            log(f"GPU memory monitor: {monitor.error}; seqfuse peak memory will be n/a")

        results = []
        for name in args.models:
            try:
                results.append(bench_model(name, args, hf, proteins, fasta, monitor))
            except BenchError as e:
                log(f"{name}: FAILED: {e}")
                results.append({"name": name, "shape": MODELS[name][0], "error": str(e)})
            except Exception as e:  # keep the other models' figures
                if hf and isinstance(e, hf[0].cuda.OutOfMemoryError):
                    hf[0].cuda.empty_cache()
                log(f"{name}: FAILED: {type(e).__name__}: {e}")
                results.append({"name": name, "shape": MODELS[name][0],
                                "error": f"{type(e).__name__}: {e}"})

        if hf:
            torch, transformers = hf[0], hf[1]
            gpu = torch.cuda.get_device_name(0)
            software = (f"torch {torch.__version__} (CUDA {torch.version.cuda}), "
                        f"transformers {transformers.__version__}, python "
                        f"{sys.version.split()[0]}")
        else:
            gpu, software = "no GPU used (dry run)", f"python {sys.version.split()[0]}"
        meta = {
            "dry_run": args.dry_run, "gpu": gpu, "software": software,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine_line(), "seqfuse_version": version,
            "input": f"first {args.count} records of {os.path.basename(args.proteins)}, cut to "
                     f"{args.max_length} residues: {proteins.summary()}",
            "weights": (f"random, seed {args.seed}, "
                        + ("unit-gain draw (see --init)" if args.init == "scaled"
                           else "transformers' init")
                        + ", saved by save_pretrained in fp32"
                        + (f" (here: {args.model_dir})" if args.model_dir else "")),
            "command": shlex.join(["python3"] + [sys.argv[0]] + argv),
            "elapsed": f"{time.monotonic() - START:.0f} s",
            "warmup": args.warmup, "runs": args.runs,
            "memory_method": monitor.method if not monitor.error else
            f"nothing ({monitor.error}: n/a)",
        }
        page = render_page(meta, results)
        if args.out:
            os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
            with open(args.out, "w") as f:
                f.write(page)
            log(f"page written to {args.out}")
        sys.stdout.write(page)
        sys.stdout.flush()
        failed = [r["name"] for r in results if r.get("error")]
        failed += [f"{r['name']}: {row.label}" for r in results for row in r.get("rows", [])
                   if row.error and not args.dry_run]
        if failed:
            log(f"done with failures: {'; '.join(failed)}")
            return 1
        log("done")
        return 0
    finally:
        if monitor:
            monitor.stop()
        if not keep_work:
            shutil.rmtree(args.work, ignore_errors=True)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BenchError as e:
        print(f"embed-bench: error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
