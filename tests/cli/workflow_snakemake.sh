#!/usr/bin/env bash
# workflow/Snakefile runs under snakemake --cores 2 on the repository's
# example data (data/, tests/data/align) in a temporary folder: the reads
# are trimmed, a k-mer histogram is made per sample, and a protein search
# split into 3 database parts (--db-part i/3) is merged by align-merge into
# exactly the bytes of one whole-database run (cmp). Skipped (exit 77, a
# ctest skip) only when snakemake is absent: scripts/setup.sh --peers
# installs it.
# Usage: workflow_snakemake.sh SEQFUSE REPOSITORY_ROOT
set -euo pipefail
seqfuse=$(realpath "$1")
root=$(realpath "$2")
if ! command -v snakemake >/dev/null; then
  echo "SKIP: snakemake not found (install it: scripts/setup.sh --peers)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/config.yaml" <<YAML
seqfuse: $seqfuse
threads: 1
samples:
  adapters:
    r1: $root/data/adapter_reads_1.fq.gz
    r2: $root/data/adapter_reads_2.fq.gz
kmer_k: 21
search:
  query: $root/tests/data/align/proteins_queries.fa
  database: $root/tests/data/align/proteins_targets.fa
  parts: 3
  mode: sw
  format: sam
  top: 3
  extra: ""
YAML
snakemake -s "$root/workflow/Snakefile" --configfile "$work/config.yaml" \
  --directory "$work" --cores 2 --quiet > "$work/snakemake.log" 2>&1 ||
  { tail -30 "$work/snakemake.log"; echo "FAIL: snakemake"; exit 1; }

cd "$work"
# The rule's command line, but over the whole database.
"$seqfuse" align-sw "$root/tests/data/align/proteins_queries.fa" \
  "$root/tests/data/align/proteins_targets.fa" --format sam --top 3 -t 1 -q > whole.sam
cmp results/search/hits.sam whole.sam || { echo "FAIL: merged search differs from one run"; exit 1; }
for f in results/trimmed/adapters_1.fq.gz results/trimmed/adapters_2.fq.gz \
         results/trimmed/adapters.fastp.json results/kmer/adapters.histo results/search/merge.json; do
  [ -s "$f" ] || { echo "FAIL: $f missing or empty"; exit 1; }
done
"$seqfuse" kmer-count -k 21 -t 1 -q results/trimmed/adapters_1.fq.gz \
  results/trimmed/adapters_2.fq.gz --histo histo
cmp histo results/kmer/adapters.histo || { echo "FAIL: histogram differs"; exit 1; }
echo "workflow snakemake: merged search identical to one run; trim and histogram done"
