#!/usr/bin/env bash
# kmer-count's FASTQ text chunk size timed side by side on one GPU machine
# (16 and 32 MiB, SEQFUSE_KMER_CHUNK_MIB), with KMC in the same hyperfine
# call: the bench's 4 M E. coli reads (simulated here as bench/run.sh does),
# k = 31, histogram. Writes $OUT/kmer-chunks.md. Run as device-run.sh's extra
# step: DEVICE_EXTRA=scripts/device-kmer-chunks.sh bash scripts/device-run.sh
set -uo pipefail
sf=$PWD/bundle/bin/seqfuse
dir=/tmp/seqfuse-bench/kmer
reads=$dir/reads.fq
threads=$(nproc)
mkdir -p "$dir/chunks"
if [ "$(cat "$dir/reads.stamp" 2>/dev/null)" != 4000000 ] || [ ! -f "$reads" ]; then
  bundle/bin/seqfuse-simulate-reads bundle/data/ecoli_MG1655.fasta.gz 4000000 150 0.01 20261122 >"$reads" || exit 1
  echo 4000000 >"$dir/reads.stamp"
fi
kmc="rm -rf $dir/chunks/tmp && mkdir -p $dir/chunks/tmp && kmc -k31 -t$threads -ci1 -cs4294967295 $reads $dir/chunks/kmc $dir/chunks/tmp >/dev/null && kmc_tools -t$threads transform $dir/chunks/kmc histogram $dir/chunks/kmc.histo -ci1 -cx100000 >/dev/null"
hyperfine --warmup 1 --runs "${KMER_CHUNK_RUNS:-9}" --export-markdown "${OUT:-.}/kmer-chunks.md" \
  -n "seqfuse 16 MiB" "SEQFUSE_KMER_CHUNK_MIB=16 $sf kmer-count -k 31 -t $threads -q --histo $dir/chunks/h16 $reads" \
  -n "seqfuse 32 MiB" "SEQFUSE_KMER_CHUNK_MIB=32 $sf kmer-count -k 31 -t $threads -q --histo $dir/chunks/h32 $reads" \
  -n "kmc" "$kmc"
awk '$2 > 0' "$dir/chunks/kmc.histo" | tr '\t' ' ' | cmp - "$dir/chunks/h16" && cmp "$dir/chunks/h16" "$dir/chunks/h32" &&
  echo "histograms: seqfuse 16 MiB = 32 MiB = KMC"
cat "${OUT:-.}/kmer-chunks.md"
