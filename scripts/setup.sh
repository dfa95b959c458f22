#!/usr/bin/env bash
# Installs everything seqfuse needs to build and test on Debian 12 (apt-get).
# Usage: scripts/setup.sh [--peers] [--hip] [--data] [--fuzz]
#   --peers  also the peer tools the tests and benchmarks compare against
#   --hip    also Debian's hipcc and HIP runtime headers (HIP compile check)
#   --data   also the Debian example-data packages (real inputs)
#   --fuzz   also clang and libFuzzer (scripts/ci-fuzz.sh)
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config git
          libhts-dev libcli11-dev catch2 libdeflate-dev libisal-dev zlib1g-dev
          nlohmann-json3-dev libopenblas-dev libhdf5-dev libdivsufsort-dev
          libsentencepiece-dev  # ProtT5's spiece.model (embed's t5 family)
          hdf5-tools  # h5ls, which the README's embed example runs
          jq  # reads the --json run report in the README's example
          python3-matplotlib  # scripts/plot-bench.py draws the README's chart (ctest plot_bench)
          help2man lintian  # man pages at build time; scripts/ci-package.sh checks the .deb
          ccache)  # scripts/test.sh: the CPU, CUDA and HIP builds share their host files
peers=(parasail jellyfish kmc fastp bwa hyperfine python3 patchelf multiqc
       samtools  # checks align-sw's SAM (tests/cli/align_strand_sam.sh)
       snakemake)  # runs workflow/Snakefile in tests/cli/workflow_snakemake.sh
# Libraries that peer drivers are built from (scripts/build-seqan3-driver.sh); with
# --peers. SeqAn 3.2 carries the sdsl-lite 3 it needs (Debian's libsdsl-dev is 2.1.1).
peer_builds=(libseqan3-dev zlib1g-dev libbz2-dev)
hip=(hipcc libamdhip64-dev librocprim-dev)
# clang 14 links -fsanitize=fuzzer from libclang-rt-14-dev; libfuzzer-14-dev
# is the standalone libFuzzer of the same release.
fuzz=(clang libclang-rt-14-dev libfuzzer-14-dev zlib1g-dev)
data=(mmseqs2-examples bowtie2-examples shovill-examples adapterremoval-examples
      ragout-examples hmmer-examples)

for arg in "$@"; do
  case "$arg" in
    --peers) packages+=("${peers[@]}" "${peer_builds[@]}") ;;
    --hip) packages+=("${hip[@]}") ;;
    --data) packages+=("${data[@]}") ;;
    --fuzz) packages+=("${fuzz[@]}") ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup.sh: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
