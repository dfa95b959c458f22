#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz, clang, ASan+UBSan) in their own
# build folder and fuzzes each reader for a fixed time, seeded with the
# repository's example files. Fails on any finding (crash, sanitizer report,
# leak, timeout, out-of-memory) and first replays every kept regression
# input (tests/fuzz/regressions/<harness>/), so a fixed crash stays fixed.
#   scripts/ci-fuzz.sh [SECONDS_PER_HARNESS]   default 20; two run at a time
# Findings are kept in build-fuzz/findings/ (reproduce: build-fuzz/fuzz_X FILE).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
build=build-fuzz
harnesses=(sequences sequences_gzip matrix safetensors esm_config kmer_db sfdb)

cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
ninja -C "$build" -j "$(nproc)"

# Seeds: the real example files (small ones), copied so the fuzzer's new
# inputs never land in the source tree.
seeds=$build/seeds findings=$build/findings
rm -rf "$seeds" "$findings"
mkdir -p "$findings"
for h in "${harnesses[@]}"; do mkdir -p "$seeds/$h"; done
cp tests/data/io/sample.fa tests/data/io/sample.fq tests/data/kmer/edge.fq data/reads.fq \
  tests/data/bwt/multi.fa "$seeds/sequences/"
cp data/proteins.fa "$seeds/sequences/"
cp data/lambda_virus.fa.gz "$seeds/sequences/"  # gzip, through ISA-L
cp "$seeds"/sequences/*.f[aq] "$seeds/sequences_gzip/"
cp tests/fuzz/seeds/matrix/* "$seeds/matrix/"
cp tests/data/embed/esm_hd24_fp16_saved/model.safetensors "$seeds/safetensors/fp16.safetensors"
# The same reader takes PyTorch's zip checkpoints: a valid one and the broken kinds.
python3 scripts/make-torch-checkpoint.py tests/data/embed/esm_hd24_fp16_saved/model.safetensors \
  "$seeds/safetensors/fp16.pt"
for kind in code deflated strided no-storage truncated; do
  python3 scripts/make-torch-checkpoint.py --bad $kind "$seeds/safetensors/$kind.pt"
done
for d in tests/data/embed/*/; do cp "$d/config.json" "$seeds/esm_config/$(basename "$d").json"; done
cp tests/fuzz/seeds/kmer_db/* "$seeds/kmer_db/"
cp tests/fuzz/seeds/sfdb/* "$seeds/sfdb/"

# htslib 1.16 leaks a thread-pool result on damaged multi-threaded BGZF input
# (tests/lsan-htslib.supp says why); that leak is not a finding.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan-htslib.supp"

# Regressions first: each kept input must now run clean.
for h in "${harnesses[@]}"; do
  dir=tests/fuzz/regressions/$h
  if compgen -G "$dir/*" >/dev/null; then
    echo "ci-fuzz: replaying $(ls "$dir" | wc -l) regression input(s) for $h"
    "$build/fuzz_$h" -runs=1 "$dir"/* >"$findings/$h.replay.log" 2>&1 \
      || { tail -40 "$findings/$h.replay.log"; echo "ci-fuzz: FAILED: $h regression input" >&2; exit 1; }
  fi
done

fuzz_one() {  # fuzz_one HARNESS: a fresh corpus folder each run, seeds read-only
  local h=$1 corpus=$build/corpus/$1
  rm -rf "$corpus" && mkdir -p "$corpus"
  if "$build/fuzz_$h" "$corpus" "$seeds/$h" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=2048 -max_len=100000 -print_final_stats=1 \
       -artifact_prefix="$findings/$h-" >"$findings/$h.log" 2>&1; then
    echo "ci-fuzz: $h clean ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$findings/$h.log" | grep -o '[0-9]*$') runs in ${seconds} s)"
  else
    tail -40 "$findings/$h.log"
    echo "ci-fuzz: FAILED: $h found a crash: $(ls "$findings"/"$h"-* 2>/dev/null | head -1)" >&2
    return 1
  fi
}
export -f fuzz_one
export build seeds findings seconds
printf '%s\n' "${harnesses[@]}" | xargs -P 2 -I{} bash -c 'fuzz_one {}'
echo "ci-fuzz: ${#harnesses[@]} harnesses clean, ${seconds} s each"
