#!/usr/bin/env bash
# kmer-count on several GPU workers (issue 22), on the GPU machine from the
# repo root with bundle/ carried (scripts/device-bundle.sh --data):
#  1. every output (.kdb, --dump, --histo, histo-only) of --device gpu:0,0
#     (and gpu:0,1 / gpu:0,1,2,3 when the machine has them) compared with cmp
#     against --device gpu:0, on tests/data/kmer for several k, both strand
#     modes, -L/-U, FASTA + FASTQ + gzip FASTQ;
#  2. the same on simulated reads (KMER_MULTI_FILES x 5 M reads of 150 bp from
#     E. coli, 1% substitutions: 1.5 GB of FASTQ each), .kdb with -L 2 and
#     --histo, then histo-only;
#  3. the median of KMER_MULTI_RUNS wall times per device set, for the scaling
#     table (speedup and efficiency against gpu:0; gpu:0,0 is two workers on
#     one card, so it measures the split's overhead, not scaling).
# Knobs: SEQFUSE_BIN, SIM_BIN, GENOME, KMER_MULTI_READS (5000000 per file),
# KMER_MULTI_WORK (/tmp/kmer-multi), KMER_MULTI_FILES (4),
# KMER_MULTI_RUNS (3), KMER_MULTI_SETS (default: gpu:0 gpu:0,0 and, by the
# GPUs present, gpu:0,1 and gpu:0,1,2,3; the first one is the baseline).
set -uo pipefail
sf=${SEQFUSE_BIN:-bundle/bin/seqfuse}
sim=${SIM_BIN:-bundle/bin/seqfuse-simulate-reads}
genome=${GENOME:-bundle/data/ecoli_MG1655.fasta.gz}
reads=${KMER_MULTI_READS:-5000000}
w=${KMER_MULTI_WORK:-/tmp/kmer-multi}
files=${KMER_MULTI_FILES:-4}
runs=${KMER_MULTI_RUNS:-3}
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
sets=${KMER_MULTI_SETS:-}
if [ -z "$sets" ]; then
  sets="gpu:0 gpu:0,0"
  [ "$gpus" -ge 2 ] && sets="$sets gpu:0,1"
  [ "$gpus" -ge 4 ] && sets="$sets gpu:0,1,2,3"
fi
base=${sets%% *}
threads=$(nproc)
mkdir -p "$w"
bad=0
tag() { local t=${1//:/_}; echo "${t//,/_}"; }

echo "== 1. test data, device sets: $sets"
gzip -c tests/data/kmer/edge.fq >"$w/edge.fq.gz"
for k in 1 5 21 31 32 33 45 63; do
  for strands in --canonical --no-canonical; do
    name=edge-k$k$strands
    for variant in plain filtered; do
      extra=()
      [ $variant = filtered ] && extra=(-L 2 -U 3)
      for d in $sets; do
        t=$w/$name-$variant.$(tag "$d")
        "$sf" kmer-count -q --device "$d" -k $k $strands "${extra[@]}" tests/data/kmer/edge.fq \
          tests/data/kmer/edge.fa "$w/edge.fq.gz" -o "$t.kdb" --dump "$t.dump" --histo "$t.histo" &&
          "$sf" kmer-count -q --device "$d" -k $k $strands tests/data/kmer/edge.fq \
            tests/data/kmer/edge.fa "$w/edge.fq.gz" --histo "$t.honly" ||
          { echo "FAILED: $name-$variant on $d"; bad=1; continue; }
        for e in kdb dump histo honly; do
          cmp -s "$w/$name-$variant.$(tag "$base").$e" "$t.$e" ||
            { echo "DIFFERS: $name-$variant.$e on $d against $base"; bad=1; }
        done
      done
    done
  done
done
echo "== 1. done ($([ $bad = 0 ] && echo all identical || echo DIFFERENCES above))"

echo "== 2. simulated reads: $files x $reads reads"
[ -x "$sim" ] && [ -f "$genome" ] || { echo "need $sim and $genome (device-bundle.sh --data)"; exit 1; }
for i in $(seq 0 $((files - 1))); do
  [ -s "$w/part$i.fq" ] || "$sim" "$genome" "$reads" 150 0.01 $((7000 + i)) >"$w/part$i.fq" &
done
wait
echo "input: $(du -shc "$w"/part*.fq | tail -n1 | cut -f1)"
for d in $sets; do
  t=$w/sim.$(tag "$d")
  "$sf" kmer-count -q -t "$threads" --device "$d" -k 31 -L 2 "$w"/part*.fq -o "$t.kdb" --histo "$t.histo" &&
    "$sf" kmer-count -q -t "$threads" --device "$d" -k 31 "$w"/part*.fq --histo "$t.honly" ||
    { echo "FAILED: sim on $d"; bad=1; continue; }
  for e in kdb histo honly; do
    cmp -s "$w/sim.$(tag "$base").$e" "$t.$e" || { echo "DIFFERS: sim.$e on $d against $base"; bad=1; }
  done
done
rm -f "$w"/sim.*.kdb

echo "== 3. median of $runs wall times (k = 31, -t $threads)"
median_s() {  # kmer-count arguments; prints the median seconds
  local r s
  for r in $(seq "$runs"); do
    s=$(date +%s%N)
    "$sf" kmer-count -q -t "$threads" "$@" >/dev/null || echo "FAILED: $*" >&2
    echo $((($(date +%s%N) - s) / 1000000))
  done | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "%.3f", $1 / 1000 }'
}
printf '%-12s %-16s %9s %8s %10s\n' output devices seconds speedup efficiency
for mode in histo db; do
  first=""
  for d in $sets; do
    if [ $mode = histo ]; then
      s=$(median_s --device "$d" -k 31 "$w"/part*.fq --histo "$w/t.histo")
    else
      s=$(median_s --device "$d" -k 31 -L 2 "$w"/part*.fq -o "$w/t.kdb")
    fi
    [ -z "$first" ] && first=$s
    cards=$(echo "${d#gpu:}" | tr ',' '\n' | sort -u | wc -l)
    awk -v m="$mode" -v d="$d" -v s="$s" -v f="$first" -v c="$cards" \
      'BEGIN { printf "%-12s %-16s %9.3f %7.2fx %9.0f%%\n", m, d, s, f / s, 100 * f / s / c }'
  done
done
rm -f "$w/t.histo" "$w/t.kdb"
echo "== one traced run on $(echo $sets | awk '{print $NF}'):"
SEQFUSE_TRACE=1 "$sf" kmer-count -t "$threads" --device "$(echo $sets | awk '{print $NF}')" -k 31 \
  "$w"/part*.fq --histo "$w/t.histo" 2>&1 | tail -n 25
echo "== $([ $bad = 0 ] && echo 'ALL OUTPUTS IDENTICAL' || echo 'SOME OUTPUTS DIFFER (see above)')"
exit $bad
