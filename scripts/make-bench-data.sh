#!/usr/bin/env bash
# Builds benchmark inputs from real reads in Debian example packages.
#
# The seeds are shovill-examples' paired Illumina reads (R1+R2, 2 x 50,000
# reads of 150 bp, 6 MB gzipped). The FASTQ benchmark input is those reads
# repeated whole until it reaches the target size (default 200 MB plain), plus
# the same file compressed with `gzip -6` (gzip's default level, what most
# pipelines write). Only the small seeds travel to the GPU machine: bench/run.sh
# rebuilds the big files there with --from, which is faster than carrying them.
#
# Usage: scripts/make-bench-data.sh [--from DIR] [--into DIR] [--target-mb N]
#        scripts/make-bench-data.sh --seeds-into DIR
#   (no options)      seeds from the installed Debian packages (installed with
#                     scripts/setup.sh --data when missing) into bench/work/seeds,
#                     inputs into bench/work/fastq
#   --from DIR        take the seeds from DIR instead (a bundle's data/: the GPU
#                     machine has no dpkg)
#   --into DIR        write the inputs under DIR (default bench/work)
#   --target-mb N     smallest size of the plain FASTQ, in 10^6 bytes (default 200)
#   --seeds-into DIR  only copy the seeds (compressed) into DIR, then stop
# Outputs: DIR/fastq/reads.fq, DIR/fastq/reads.fq.gz, DIR/fastq/reads.info
# (records, bytes, repetitions); rebuilt only when the seeds or target change.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# Seed files: the name they get in the seed folder, and the Debian package file.
seed_names=(shovill_R1.fq.gz shovill_R2.fq.gz)
seed_package=shovill-examples
seed_package_files=(R1.fq.gz R2.fq.gz)

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
log() { echo "make-bench-data: $*"; }
die() { echo "make-bench-data: error: $*" >&2; exit 1; }

# Path of a file shipped by a Debian package, by its base name.
package_file() {
  local pkg=$1 base=$2 path
  path=$(dpkg -L "$pkg" 2>/dev/null | grep -m1 "/$base\$") || true
  [ -n "$path" ] && [ -f "$path" ] || die "$pkg does not ship $base (dpkg -L $pkg)"
  echo "$path"
}

ensure_package() {
  if ! dpkg-query -W -f='${Status}' "$seed_package" 2>/dev/null | grep -q "install ok installed"; then
    log "installing $seed_package (scripts/setup.sh --data)"
    "$repo/scripts/setup.sh" --data
  fi
}

copy_seeds() {  # copy_seeds DEST: the compressed real reads, under stable names
  local dest=$1 i src
  command -v dpkg >/dev/null || die "no dpkg here; use --from DIR with seeds copied by --seeds-into"
  ensure_package
  mkdir -p "$dest"
  for i in "${!seed_names[@]}"; do
    src=$(package_file "$seed_package" "${seed_package_files[$i]}")
    cp -f "$src" "$dest/${seed_names[$i]}"
  done
  # Protein search: MMseqs2's 500 example queries and its 20,000-protein DB.
  for i in DB QUERY; do
    src=$(package_file mmseqs2-examples "$i.fasta.gz")
    cp -f "$src" "$dest/mmseqs_$i.fasta.gz"
  done
  # k-mer counting: the E. coli K-12 MG1655 genome reads are simulated from.
  cp -f "$(package_file ragout-examples MG1655-K12.fasta.gz)" "$dest/ecoli_MG1655.fasta.gz"
  # DNA pairs: the lambda phage genome the pairs are cut from.
  cp -f "$(package_file bowtie2-examples lambda_virus.fa.gz)" "$dest/lambda_virus.fa.gz"
  log "seeds: ${seed_names[*]} from $seed_package, mmseqs_{DB,QUERY}.fasta.gz from mmseqs2-examples, ecoli_MG1655.fasta.gz from ragout-examples, lambda_virus.fa.gz from bowtie2-examples -> $dest ($(du -sh "$dest" | cut -f1))"
}

# Repeats the seeds' reads whole until the plain file has at least target_mb
# MB, then gzips it. A stamp (reads.info) skips the work when nothing changed.
build_fastq() {
  local seeds=$1 out=$2 target_mb=$3 name unit unit_bytes reps i lines stamp
  mkdir -p "$out"
  for name in "${seed_names[@]}"; do
    [ -f "$seeds/$name" ] || die "seed $seeds/$name is missing (run scripts/make-bench-data.sh here, or device-bundle.sh --data)"
  done
  stamp="target_mb=$target_mb seeds=$(cd "$seeds" && wc -c "${seed_names[@]}" | awk '$2 != "total" {printf "%s:%s,", $2, $1}')"
  if [ -f "$out/reads.info" ] && [ -f "$out/reads.fq" ] && [ -f "$out/reads.fq.gz" ] &&
     grep -qxF "$stamp" "$out/reads.info"; then
    log "fastq: up to date in $out ($(sed -n 's/^summary=//p' "$out/reads.info"))"
    return 0
  fi
  rm -f "$out/reads.info"
  unit="$out/unit.fq.tmp"
  for name in "${seed_names[@]}"; do gzip -dc "$seeds/$name"; done >"$unit"
  unit_bytes=$(wc -c <"$unit")
  lines=$(wc -l <"$unit")
  ((lines % 4 == 0)) || die "seed reads are not 4-line FASTQ ($lines lines)"
  reps=$(((target_mb * 1000000 + unit_bytes - 1) / unit_bytes))
  ((reps >= 1)) || reps=1
  log "fastq: ${seed_names[*]} = $((lines / 4)) reads, $unit_bytes bytes; x$reps -> $out/reads.fq"
  for ((i = 0; i < reps; i++)); do cat "$unit"; done >"$out/reads.fq.tmp"
  rm -f "$unit"
  mv "$out/reads.fq.tmp" "$out/reads.fq"
  log "fastq: gzip -6 -> $out/reads.fq.gz"
  gzip -6 -c "$out/reads.fq" >"$out/reads.fq.gz.tmp"
  mv "$out/reads.fq.gz.tmp" "$out/reads.fq.gz"
  {
    echo "$stamp"
    echo "records=$((reps * lines / 4))"
    echo "bytes=$((reps * unit_bytes))"
    echo "gz_bytes=$(wc -c <"$out/reads.fq.gz")"
    echo "repetitions=$reps"
    echo "summary=$seed_package R1+R2 x$reps, $((reps * lines / 4)) reads, $((reps * unit_bytes / 1000000)) MB"
  } >"$out/reads.info.tmp"
  mv "$out/reads.info.tmp" "$out/reads.info"
  log "fastq: $(sed -n 's/^summary=//p' "$out/reads.info"), gzip $(($(wc -c <"$out/reads.fq.gz") / 1000000)) MB"
}

main() {
  local from="" into="$repo/bench/work" target_mb=200 seeds_into=""
  while (($#)); do
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --from|--into|--target-mb|--seeds-into)
        (($# >= 2)) || die "$1 needs a value"
        case "$1" in
          --from) from=$2 ;;
          --into) into=$2 ;;
          --target-mb) target_mb=$2 ;;
          --seeds-into) seeds_into=$2 ;;
        esac
        shift 2 ;;
      *) usage >&2; die "unknown argument '$1'" ;;
    esac
  done
  [[ "$target_mb" =~ ^[1-9][0-9]*$ ]] || die "--target-mb must be a positive integer"

  if [ -n "$seeds_into" ]; then
    copy_seeds "$seeds_into"
    return 0
  fi
  if [ -z "$from" ]; then
    from="$into/seeds"
    copy_seeds "$from"
  fi
  build_fastq "$from" "$into/fastq" "$target_mb"
}

main "$@"
