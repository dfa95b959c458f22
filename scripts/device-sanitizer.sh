#!/usr/bin/env bash
# compute-sanitizer over small runs of every GPU path of seqfuse (issue 20):
# memcheck, racecheck and initcheck, each over
#   align-sw search, align-nw --pairs, align-sw --traceback (proteins and DNA),
#   kmer-count (FASTQ and FASTA), bwt (bwa format, multi-record with N runs),
#   fastq-trim (paired, adapters, report), embed (fp32, bf16, fp16 models),
# every run with --device gpu on the shipped tiny inputs. A finding is a
# sanitizer "ERROR SUMMARY: N errors" with N > 0; each one is attributed to a
# kernel, and kernels that are not seqfuse's own (cuBLASLt's nvjet_* / sm90_*
# / cutlass_* and the CUB/driver kernels we do not write) are named as such.
# Writes $OUT/sanitizer.md (one row per tool x run: errors, seconds, kernels
# named in the findings) and $OUT/sanitizer.log (the full sanitizer output).
# Runs inside the carried bundle (scripts/device-bundle.sh):
#   bash scripts/device-sanitizer.sh
# Environment: TOOLS (default "memcheck racecheck initcheck"), OUT,
# BUDGET_S (default 420: past it, remaining rows are skipped and listed).
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
repo=$PWD
sf=$repo/bundle/bin/seqfuse
sanitizer=${SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
OUT=${OUT:-$PWD/device-out}
work=$(mktemp -d /tmp/seqfuse-sanitize.XXXXXX)
mkdir -p "$OUT"
table=$OUT/sanitizer.md
log=$OUT/sanitizer.log
: >"$log"
started=$(date +%s)
budget=${BUDGET_S:-420}
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
td=$repo/tests/data

# name|command (run in $work; every command writes under $work)
runs=(
  "align-sw search (proteins)|$sf align-sw --device gpu $td/align/proteins_queries.fa $td/align/proteins_targets.fa -o sw.tsv"
  "align-nw search (DNA)|$sf align-nw --device gpu $td/align/lambda_queries.fa $td/align/lambda_targets.fa -o nw.tsv"
  "align-nw --pairs (proteins)|$sf align-nw --device gpu --pairs $td/align/proteins_queries.fa $td/align/proteins_queries.fa -o pairs.tsv"
  "align-sw --traceback sam (proteins)|$sf align-sw --device gpu --traceback --format sam $td/align/proteins_queries.fa $td/align/proteins_targets.fa -o tb.sam"
  "align-nw --traceback (DNA)|$sf align-nw --device gpu --traceback $td/align/lambda_queries.fa $td/align/lambda_targets.fa -o tbn.tsv"
  "kmer-count -k 21 (FASTQ)|$sf kmer-count --device gpu -k 21 $repo/data/reads.fq -o k.kdb --histo k.histo"
  "kmer-count -k 31 (FASTA, edge cases)|$sf kmer-count --device gpu -k 31 $td/kmer/edge.fa -o e.kdb --dump e.txt"
  "bwt (multi-record, N runs)|$sf bwt --device gpu -p multi $td/bwt/multi.fa"
  "bwt (lambda)|$sf bwt --device gpu -p lambda $repo/data/lambda_virus.fa.gz"
  "fastq-trim (paired, adapters)|$sf fastq-trim --device gpu -i $repo/data/adapter_reads_1.fq.gz -I $repo/data/adapter_reads_2.fq.gz -o t1.fq -O t2.fq -j t.json -c"
  "embed fp32 model, fp32|$sf embed --device gpu --dtype fp32 --model $td/embed/esm_hd64_fp32_saved $repo/data/proteins.fa -o e32.tsv"
  "embed bf16 model, bf16|$sf embed --device gpu --dtype bf16 --model $td/embed/esm_hd32_bf16_hub $repo/data/proteins.fa -o ebf.tsv"
  "embed fp16 model, fp16|$sf embed --device gpu --dtype fp16 --model $td/embed/esm_hd24_fp16_saved $repo/data/proteins.fa -o e16.tsv"
  "embed fp32 model, bf16, per residue|$sf embed --device gpu --dtype bf16 --pool none --model $td/embed/esm_hd16_fp32_hub $repo/data/proteins.fa -o er.npy"
)

# Kernels that are not seqfuse's own: cuBLASLt's (nvjet, sm90/sm80 xmma,
# cutlass) and CUB's (DeviceRadixSort..., DeviceScan...) are libraries we call.
library_kernel='nvjet|xmma|cutlass|gemmk|gemv|cublas|Device(Radix|Scan|Reduce|Select|Segmented|Merge|Histogram)|cub::'

{
  echo "# compute-sanitizer over seqfuse's GPU paths"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ), GPU: ${gpu_name:-none}, $($sanitizer --version 2>/dev/null | grep -i version | head -n1)"
  echo "- bundle: $(cat bundle/BUILD_INFO 2>/dev/null | head -n1)"
  echo "- command: \`bash scripts/device-sanitizer.sh\` (TOOLS=${TOOLS:-memcheck racecheck initcheck})"
  echo
  echo "| tool | run | exit | errors | s | kernels in findings (ours / library) |"
  echo "|---|---|---|---|---|---|"
} >"$table"

ours_total=0 library_total=0 failed=0 skipped=()
cd "$work" || exit 1
for tool in ${TOOLS:-memcheck racecheck initcheck}; do
  for entry in "${runs[@]}"; do
    name=${entry%%|*} cmd=${entry#*|}
    if [ $(($(date +%s) - started)) -gt "$budget" ]; then
      skipped+=("$tool: $name")
      continue
    fi
    extra=()
    [ "$tool" = racecheck ] && extra=(--racecheck-report hazard)
    echo "== $tool: $name: $cmd" >>"$log"
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    $sanitizer --tool "$tool" "${extra[@]}" --print-limit 20 $cmd >"$work/one.log" 2>&1
    rc=$?
    t1=$(date +%s%N)
    cat "$work/one.log" >>"$log"
    # racecheck sums up as "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    if [ "$tool" = racecheck ]; then
      errors=$(grep -oE 'RACECHECK SUMMARY: .*\(([0-9]+) errors, ([0-9]+) warnings' "$work/one.log" |
        tail -n1 | grep -oE '[0-9]+ (errors|warnings)' | awk '{n += $1} END {if (NR) print n}')
    else
      errors=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$work/one.log" | tail -n1 | grep -oE '[0-9]+$')
    fi
    # The kernel named in each finding: memcheck/initcheck "in KERNEL", racecheck "in KERNEL" too.
    kernels=$(grep '^=========' "$work/one.log" | grep -oE '(at|in) [A-Za-z_][A-Za-z0-9_:<>, ]*\(' | sed -E 's/^(at|in) //; s/\($//' |
      grep -vE '^(0x|cuda|cu[A-Z])' | sort -u | head -n 6 | tr '\n' ';' | sed 's/;$//')
    ours=0 lib=0
    if [ "${errors:-0}" -gt 0 ]; then
      if [ -n "$kernels" ] && ! tr ';' '\n' <<<"$kernels" | grep -qvE "$library_kernel"; then
        lib=$errors
      else
        ours=$errors
      fi
    fi
    ours_total=$((ours_total + ours)) library_total=$((library_total + lib))
    [ "$rc" -eq 0 ] || [ "${errors:-0}" -gt 0 ] || failed=$((failed + 1))
    label="${kernels:--}"
    [ "$lib" -gt 0 ] && label="library only: $kernels"
    printf '| %s | %s | %s | %s | %.1f | %s |\n' "$tool" "$name" "$rc" "${errors:-?}" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print (b - a) / 1e9}')" "$label" >>"$table"
  done
done
{
  echo
  echo "Findings in seqfuse's own kernels: $ours_total; in library kernels: $library_total;" \
    "runs that failed without a finding: $failed."
  [ ${#skipped[@]} -eq 0 ] || printf -- '- skipped (budget %s s): %s\n' "$budget" "${skipped[@]}"
} >>"$table"
cat "$table"
rm -rf "$work"
[ "$ours_total" -eq 0 ] && [ "$failed" -eq 0 ]
