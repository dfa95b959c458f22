#!/usr/bin/env bash
# kmer-count on a read set larger than one round of the GPU's room, timed
# beside KMC on the same machine: KMER_FILES (default 7) x 5 M simulated
# 150 bp E. coli reads with 1% errors (about 1.6 GB each, the inputs of
# device-multi-gpu.sh's kmer workload), k = 31, the histogram. seqfuse runs
# KMER_RUNS times (default 3, the median counts), KMC (`kmc` then `kmc_tools
# transform histogram`, both timed) KMC_RUNS times (default 1: it takes
# minutes); the histograms must agree. Inside the carried bundle, with kmc
# and kmc_tools in bundle/peers/bin. Writes $OUT/kmer-large.md. SEQFUSE_BIN
# and READS_PER_FILE (default 5000000) for a rehearsal elsewhere.
set -uo pipefail
source scripts/device-env.sh
prepare_bundle >/dev/null
sf=${SEQFUSE_BIN:-$PWD/bundle/bin/seqfuse}
export PATH=$PWD/bundle/peers/bin:$PATH
work=${KMER_LARGE_WORK:-/tmp/seqfuse-kmer-large}
threads=$(nproc)
out=${OUT:-.}/kmer-large.md
mkdir -p "$work/kmc-tmp"
files=()
for ((i = 0; i < ${KMER_FILES:-7}; i++)); do
  files+=("$work/part$i.fq")
  [ -s "$work/part$i.fq" ] ||
    bundle/bin/seqfuse-simulate-reads bundle/data/ecoli_MG1655.fasta.gz "${READS_PER_FILE:-5000000}" 150 0.01 $((7000 + i)) \
      >"$work/part$i.fq" &
done
wait
printf '%s\n' "${files[@]}" >"$work/files.txt"
bytes=$(cat "${files[@]}" | wc -c)
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
sf_times=() kmc_times=()
for ((r = 0; r < ${KMER_RUNS:-3}; r++)); do
  t0=$(date +%s%N)
  "$sf" kmer-count -k 31 -t "$threads" -q --histo "$work/seqfuse.histo" "${files[@]}" || exit 1
  sf_times+=("$(seconds "$t0" "$(date +%s%N)")")
done
for ((r = 0; r < ${KMC_RUNS:-1}; r++)); do
  rm -rf "$work/kmc-tmp" && mkdir -p "$work/kmc-tmp"
  t0=$(date +%s%N)
  kmc -k31 -t"$threads" -ci1 -cs4294967295 @"$work/files.txt" "$work/kmc" "$work/kmc-tmp" >/dev/null 2>&1 &&
    kmc_tools -t"$threads" transform "$work/kmc" histogram "$work/kmc.histo" -ci1 -cx100000 >/dev/null ||
    exit 1
  kmc_times+=("$(seconds "$t0" "$(date +%s%N)")")
done
# KMC lists every count up to -cx; jellyfish's histo (and seqfuse's) ends at
# 10000 with the k-mers counted more often in a "10001" catch-all row.
verdict="DIFFERENT"
awk '$2 > 0 { if ($1 > 10000) above += $2; else print $1, $2 } END { if (above) print 10001, above }' \
  "$work/kmc.histo" >"$work/kmc.jellyfish.histo"
cmp -s "$work/kmc.jellyfish.histo" "$work/seqfuse.histo" && verdict="identical"
cp "$work/kmc.jellyfish.histo" "$work/seqfuse.histo" "${OUT:-.}/"
sf_median=$(median_of "${sf_times[@]}") kmc_median=$(median_of "${kmc_times[@]}")
{
  echo "# kmer-count at scale against KMC"
  echo
  echo "- $(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1), $threads threads, bundle $(sed -n 's/^commit=//p' bundle/BUILD_INFO)"
  echo "- input: ${#files[@]} x ${READS_PER_FILE:-5000000} simulated 150 bp E. coli reads, $bytes bytes of FASTQ; k = 31, histogram"
  echo "- histograms (KMC's non-zero rows, past 10000 summed as jellyfish does, against seqfuse's): $verdict"
  echo
  echo "| tool | median s | runs (s) |"
  echo "|---|---|---|"
  echo "| seqfuse kmer-count | $sf_median | ${sf_times[*]} |"
  echo "| kmc + kmc_tools histogram | $kmc_median | ${kmc_times[*]} |"
  echo
  awk -v k="$kmc_median" -v s="$sf_median" 'BEGIN { printf "KMC / seqfuse: %.2fx\n", k / s }'
} >"$out"
cat "$out"
[ "$verdict" = identical ]
