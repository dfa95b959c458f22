#!/usr/bin/env bash
# Installs what seqfuse needs (Debian 12), builds it (with CUDA when nvcc is
# present) and runs it on the example data in data/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# The binary and what `cmake --install build` and cpack take with it (the
# man pages, the changelog); the tests are scripts/test.sh's.
install_targets=$(ninja -C build -t targets all | grep -oE '^seqfuse_(man|changelog):' | tr -d : || true)
ninja -C build seqfuse $install_targets >/dev/null
echo "+ build/bin/seqfuse info"
build/bin/seqfuse info
echo "+ build/bin/seqfuse align-sw data/proteins.fa --top 2 --traceback"
build/bin/seqfuse align-sw data/proteins.fa --top 2 --traceback
echo "+ build/bin/seqfuse bwt data/lambda_virus.fa.gz -p build/lambda"
build/bin/seqfuse bwt data/lambda_virus.fa.gz -p build/lambda
echo "+ build/bin/seqfuse fastq-trim -i data/adapter_reads_1.fq.gz -I data/adapter_reads_2.fq.gz -o build/trimmed_1.fq.gz -O build/trimmed_2.fq.gz -j build/fastp.json -h build/fastp.html"
build/bin/seqfuse fastq-trim -i data/adapter_reads_1.fq.gz -I data/adapter_reads_2.fq.gz \
  -o build/trimmed_1.fq.gz -O build/trimmed_2.fq.gz -j build/fastp.json -h build/fastp.html
