#!/usr/bin/env bash
# Issue 22 on a multi-GPU machine, inside the carried bundle (made with
# scripts/device-bundle.sh --data, mmseqs_DB.fasta.gz and hs37chrXtrunc.fa.gz
# kept in bundle/data).
#
# MODE=identity: every subcommand runs with --device gpu:0 (the reference),
#   then with each of DEVICE_LISTS (default "gpu:0,0 gpu:0,1 gpu:all"); every
#   output must equal the reference byte for byte (SAM's @PG line and the
#   fastq-trim reports, which hold the command line, aside). Inputs:
#   ID_QUERIES (default 2000) proteins, ID_PAIRS (default 1000000) simulated
#   read pairs, E. coli, the test models; ID_JOBS, a regular expression,
#   keeps the jobs whose names match. Writes $OUT/multi-gpu-identity.md.
# MODE=scaling: the issue's workloads on 1, 2, 4, ... GPUs (gpu:0, gpu:0,1,
#   ... up to the GPUs found, or GPU_COUNTS="1 2 4"), RUNS runs each (default
#   3); the median wall time, the speed-up over one GPU and the parallel
#   efficiency (speed-up / GPUs). Each run's output is compared with the
#   one-GPU run's. WORKLOADS picks among align alignsfdb kmer kmerhisto embed
#   bwt trim (default all but alignsfdb and kmerhisto; kmerhisto is kmer's
#   count with --histo alone, no database). Sizes: ALIGN_COPIES (default 100 copies of
#   mmseqs2-examples' 20,000 proteins, 0.9 G residues) searched by
#   ALIGN_QUERIES (default 100) of its queries (alignsfdb: the same search
#   from a database `align-db` built once, its build time in the table's
#   header); KMER_FILES x 5 M simulated 150 bp reads (default 13 files,
#   ~21 GB of FASTQ; the k = 31 histogram, -o /dev/null); EMBED_PROTEINS
#   (default 100000) proteins embedded by a random ESM-2 650M-shaped
#   checkpoint (scripts/make-random-esm.py t33) in
#   bf16; TRIM_PAIRS (default 4000000) simulated pairs; bwt on a simulated
#   genome of BWT_MBP Mbp (default 3100, human-sized: random bases, 10 kb
#   repeats planted, both strands indexed, 6.2 G suffixes, sorted in buckets
#   that the GPUs share; a genome the one-pass sort takes on one GPU, up to
#   about 1 Gbp on an H100 and 2 Gbp on an H200, is sorted there whatever
#   the list: BWT_MBP=400 shows that the list costs nothing), its files also compared with `bwa index`'s when
#   BWT_BWA=1 (bwa in bundle/peers/bin; an hour at 3.1 Gbp, minutes at 400).
#   The identity jobs include bwt on E. coli against `bwa index` (gpu:0 and
#   every list give bwa's five files).
#   Writes $OUT/multi-gpu-scaling.md.
#   TRACE=1 keeps each scaling run's SEQFUSE_TRACE lines in $OUT/traces.
# Environment: MODE (identity, scaling or both; default both), OUT,
# SEQFUSE_BIN and SIM_BIN (other builds), DRY=1 (a rehearsal without GPUs:
# every device list becomes cpu, with small CPU builds, to test this script).
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
repo=$PWD
sf=${SEQFUSE_BIN:-$repo/bundle/bin/seqfuse}
sim=${SIM_BIN:-$repo/bundle/bin/seqfuse-simulate-reads}
td=$repo/tests/data
bd=$repo/bundle/data
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
work=${MULTI_GPU_WORK:-/tmp/seqfuse-multi}
mkdir -p "$work"
dry=${DRY:-0}
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
[ "$dry" = 1 ] && gpus=2 gpu_name="(dry run: cpu)"
threads=$(nproc)
mode=${MODE:-both}
commit=$(sed -n 's/^commit=//p' "$repo/bundle/BUILD_INFO")

end_table() {  # end_table FILE FAILURES: the count under the table, the table shown; status 0 if none
  echo >>"$1"
  echo "Failures: $2." >>"$1"
  cat "$1"
  [ "$2" -eq 0 ]
}
# The files a run writes, and how they are compared: SAM's @PG line and
# fastq-trim's reports carry the command line (and so the --device list).
same_output() {  # same_output A B
  case $1 in
    *.sam) cmp -s <(grep -v '^@PG' "$1") <(grep -v '^@PG' "$2") ;;
    *) cmp -s "$1" "$2" ;;
  esac
}

# name|outputs (space-separated, relative to the run's folder)|command with
# {DEV} for the device list. Each run gets a folder of its own.
identity_jobs=(
  "align-sw search|hits.tsv|$sf align-sw --device {DEV} $work/Q.fa $bd/mmseqs_QUERY.fasta.gz --top 20 -o hits.tsv"
  "align-sw search in parts|parts.tsv|env SEQFUSE_ALIGN_PART_RESIDUES=30000 $sf align-sw --device {DEV} $work/Q.fa $bd/mmseqs_QUERY.fasta.gz --top 20 -o parts.tsv"
  "align-sw all-vs-all|all.tsv|$sf align-sw --device {DEV} $work/Q.fa --top 5 -o all.tsv"
  "align-sw search, top 0|top0.tsv|$sf align-sw --device {DEV} $td/align/proteins_queries.fa $td/align/proteins_targets.fa --top 0 -o top0.tsv"
  "align-nw traceback SAM|t.sam|$sf align-nw --device {DEV} --traceback --format sam $td/align/proteins_queries.fa $td/align/proteins_targets.fa -o t.sam"
  "align-sw --pairs DNA|p.tsv|$sf align-sw --device {DEV} --pairs $work/pa.fa $work/pb.fa -o p.tsv"
  "align-sw --pairs --traceback|pt.tsv|$sf align-sw --device {DEV} --pairs --traceback $work/pa.fa $work/pb.fa -o pt.tsv"
  "kmer-count k31 canonical|k.kdb k.histo|$sf kmer-count --device {DEV} -k 31 $work/r1.fq $work/r2.fq -o k.kdb --histo k.histo"
  "kmer-count k21 FASTA dump|d.txt|$sf kmer-count --device {DEV} -k 21 --no-canonical $bd/ecoli_MG1655.fasta.gz --dump d.txt -o /dev/null"
  "kmer-count histo only|h.txt|$sf kmer-count --device {DEV} -k 25 $work/r1.fq --histo h.txt -o /dev/null"
  "embed bf16 mean|e1.tsv|$sf embed --device {DEV} --dtype bf16 --model $td/embed/esm_hd32_bf16_hub $work/Q.fa -o e1.tsv"
  "embed fp32 per-residue npy|e2.npy e2.ids.txt|$sf embed --device {DEV} --dtype fp32 --model $td/embed/esm_hd64_fp32_saved --pool none $work/Q200.fa --format npy -o e2.npy"
  "embed fp16 bos, two layers|e3.tsv|$sf embed --device {DEV} --dtype fp16 --model $td/embed/esm_hd32_bf16_hub $work/Q.fa --pool bos --layers 0 -1 -o e3.tsv"
  "bwt E. coli|b.bwt b.sa b.pac b.ann b.amb|$sf bwt --device {DEV} -p b $bd/ecoli_MG1655.fasta.gz"
  "bwt E. coli, small buckets|b.bwt b.sa b.pac b.ann b.amb|env SEQFUSE_BWT_BUCKET_SUFFIXES=300000 $sf bwt --device {DEV} -p b $bd/ecoli_MG1655.fasta.gz"
  "bwt chrX|b.bwt b.sa b.pac|$sf bwt --device {DEV} -p b $work/chrx.fa"
  "fastq-trim pairs|t1.fq t2.fq|$sf fastq-trim --device {DEV} -i $work/r1.fq -I $work/r2.fq -o t1.fq -O t2.fq -j /dev/null -h /dev/null"
  "fastq-trim gzip single|s.fq.gz|$sf fastq-trim --device {DEV} -i $work/r1.fq.gz -o s.fq.gz -j /dev/null -h /dev/null"
)

make_identity_inputs() {
  # chrX for bwt's job (missing from bundle/data: that job fails, the others run).
  gzip -dc "$bd/hs37chrXtrunc.fa.gz" >"$work/chrx.fa" 2>/dev/null || rm -f "$work/chrx.fa"
  gzip -dc "$bd/mmseqs_QUERY.fasta.gz" | awk -v n="${ID_QUERIES:-2000}" '/^>/ { if (++k > n) exit } { print }' >"$work/Q.fa"
  awk '/^>/ { if (++k > 200) exit } { print }' "$work/Q.fa" >"$work/Q200.fa"
  "$sim" --trim-pairs "${ID_PAIRS:-1000000}" 150 20261126 "$work/r1.fq" "$work/r2.fq" || return 1
  gzip -1 -c "$work/r1.fq" >"$work/r1.fq.gz"
  # DNA pairs: 200,000 reads of r1 against their own mates, as FASTA.
  awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2 { print } NR >= 800000 { exit }' \
    "$work/r1.fq" >"$work/pa.fa"
  awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2 { print } NR >= 800000 { exit }' \
    "$work/r2.fq" >"$work/pb.fa"
}

run_identity() {
  local table=$OUT/multi-gpu-identity.md failures=0
  make_identity_inputs || { echo "identity inputs failed" >&2; return 1; }
  {
    echo "# --device lists give the one-GPU output (issue 22)"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ), $gpus x $gpu_name, bundle $commit"
    echo "- command: \`MODE=identity bash scripts/device-multi-gpu.sh\`"
    echo
    echo "| job | devices | exit | seconds | verdict |"
    echo "|---|---|---|---|---|"
  } >"$table"
  local lists=${DEVICE_LISTS:-gpu:0,0 gpu:0,1 gpu:all}
  for entry in "${identity_jobs[@]}"; do
    [[ ${entry%%|*} =~ ${ID_JOBS:-.} ]] || continue
    local name=${entry%%|*} rest=${entry#*|}
    local outputs=${rest%%|*} cmd=${rest#*|}
    local ref=$work/id/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_')
    for dev in gpu:0 $lists; do
      local dir=$ref/${dev//[:,]/_}
      rm -rf "$dir" && mkdir -p "$dir"
      local t0 rc verdict=reference
      t0=$(now_ms)
      local run_cmd=${cmd//\{DEV\}/$dev}
      [ "$dry" = 1 ] && run_cmd=$(echo "${cmd//\{DEV\}/cpu}" | sed 's/--dtype [a-z0-9]*/--dtype fp32/')
      (cd "$dir" && $run_cmd >/dev/null 2>err.txt)
      rc=$?
      local secs
      secs=$(awk -v ms=$(($(now_ms) - t0)) 'BEGIN { printf "%.2f", ms / 1000 }')
      if [ "$rc" != 0 ]; then
        verdict="FAILED: $(tail -n1 "$dir/err.txt")"
      elif [ "$dev" != gpu:0 ]; then
        verdict=identical
        for f in $outputs; do
          same_output "$ref/gpu_0/$f" "$dir/$f" || verdict="DIFFERENT ($f)"
        done
      fi
      case $verdict in identical | reference) ;; *) failures=$((failures + 1)) ;; esac
      echo "| $name | $dev | $rc | $secs | $verdict |" >>"$table"
    done
  done
  # bwt's one-GPU files against bwa's own (the E. coli job's reference run).
  if [[ "bwt E. coli" =~ ${ID_JOBS:-.} ]]; then
    local bwa_dir=$work/id/bwa_ecoli verdict=identical f
    rm -rf "$bwa_dir" && mkdir -p "$bwa_dir"
    gzip -dc "$bd/ecoli_MG1655.fasta.gz" >"$bwa_dir/ecoli.fa"
    if ! PATH="$repo/bundle/peers/bin:$PATH" bwa index -p "$bwa_dir/b" "$bwa_dir/ecoli.fa" \
      >/dev/null 2>&1; then
      verdict="FAILED: bwa index (bundle/peers/bin/bwa)"
    else
      for f in b.bwt b.sa b.pac b.ann b.amb; do
        cmp -s "$bwa_dir/$f" "$work/id/bwt_E__coli/gpu_0/$f" || verdict="DIFFERENT ($f)"
      done
    fi
    case $verdict in identical) ;; *) failures=$((failures + 1)) ;; esac
    echo "| bwt E. coli: gpu:0 vs bwa index | bwa | - | - | $verdict |" >>"$table"
  fi
  end_table "$table" "$failures"
}

# ---- scaling ----------------------------------------------------------------

device_list() {  # device_list N: gpu:0,1,...,N-1
  local n=$1 list=gpu:0 i
  for ((i = 1; i < n; i++)); do list+=",$i"; done
  echo "$list"
}

make_align_inputs() {
  gzip -dc "$bd/mmseqs_DB.fasta.gz" >"$work/DB1.fa"
  for ((i = 0; i < ${ALIGN_COPIES:-100}; i++)); do cat "$work/DB1.fa"; done >"$work/DB.fa"
  gzip -dc "$bd/mmseqs_QUERY.fasta.gz" |
    awk -v n="${ALIGN_QUERIES:-100}" '/^>/ { if (++k > n) exit } { print }' >"$work/AQ.fa"
}

make_scaling_inputs() {
  local w
  for w in $workloads; do
    case $w in
      align) make_align_inputs ;;
      alignsfdb)
        [ -s "$work/DB.fa" ] || make_align_inputs
        local t0
        t0=$(now_ms)
        "$sf" align-db -q "$work/DB.fa" -o "$work/DB.sfdb" || return 1
        sfdb_build_s=$(awk -v ms=$(($(now_ms) - t0)) 'BEGIN { printf "%.2f", ms / 1000 }') ;;
      kmer | kmerhisto)
        for ((i = 0; i < ${KMER_FILES:-13}; i++)); do
          [ -s "$work/part$i.fq" ] ||
            "$sim" "$bd/ecoli_MG1655.fasta.gz" 5000000 150 0.01 $((7000 + i)) >"$work/part$i.fq" &
        done
        wait ;;
      embed)
        [ -s "$work/esm650/model/model.safetensors" ] ||
          python3 scripts/make-random-esm.py "$work/esm650" t33 1 >/dev/null || return 1
        gzip -dc "$bd/mmseqs_DB.fasta.gz" >"$work/DB1.fa"
        for ((i = 0; i < 5; i++)); do cat "$work/DB1.fa"; done |
          awk -v n="${EMBED_PROTEINS:-100000}" '/^>/ { if (++k > n) exit; print ">p" k; next } { print }' \
            >"$work/EP.fa" ;;
      bwt)
        [ -s "$work/genome$bwt_mbp.fa" ] || python3 - "$work/genome$bwt_mbp.fa" "$bwt_mbp" <<'PY' || return 1
import random
import sys
fa, mbp = sys.argv[1], float(sys.argv[2])
rng = random.Random(20261126)
n = int(mbp * 1e6)
codes = bytes(b"ACGT"[k & 3] for k in range(256))
seq = bytearray()
for at in range(0, n, 1 << 26):  # randbytes takes at most 2^28 bytes a call
    seq += rng.randbytes(min(1 << 26, n - at)).translate(codes)
for _ in range(max(1, n // 30_000_000)):  # a 10 kb segment copied to three other places
    src = rng.randrange(n - 10000)
    for _ in range(3):
        dst = rng.randrange(n - 10000)
        seq[dst:dst + 10000] = seq[src:src + 10000]
records = 8
bounds = [n * r // records for r in range(records + 1)]
with open(fa, "wb") as out:
    for r in range(records):
        out.write(b">sim%d\n" % (r + 1))
        out.write(seq[bounds[r]:bounds[r + 1]])
        out.write(b"\n")
PY
        ;;
      trim)
        [ -s "$work/t1.fq" ] ||
          "$sim" --trim-pairs "${TRIM_PAIRS:-4000000}" 150 20261125 "$work/t1.fq" "$work/t2.fq" ;;
    esac
  done
}

# scaling_command WORKLOAD DEVICES: the command line, writing into the current folder.
scaling_command() {
  case $1 in
    align) echo "$sf align-sw --device $2 -t $threads $work/AQ.fa $work/DB.fa -o out.tsv" ;;
    alignsfdb) echo "$sf align-sw --device $2 -t $threads $work/AQ.fa $work/DB.sfdb -o out.tsv" ;;
    kmer) echo "$sf kmer-count --device $2 -t $threads -k 31 $(ls "$work"/part*.fq | tr '\n' ' ') --histo out.histo -o /dev/null" ;;
    kmerhisto) echo "$sf kmer-count --device $2 -t $threads -k 31 $(ls "$work"/part*.fq | tr '\n' ' ') --histo out.histo" ;;
    embed) echo "$sf embed --device $2 -t $threads --dtype bf16 --model $work/esm650/model $work/EP.fa -o out.npy" ;;
    bwt) echo "$sf bwt --device $2 -t $threads -p out $work/genome$bwt_mbp.fa" ;;
    trim) echo "$sf fastq-trim --device $2 -w $threads -i $work/t1.fq -I $work/t2.fq -o out1.fq -O out2.fq -j /dev/null -h /dev/null" ;;
  esac
}
scaling_outputs() {
  case $1 in
    align | alignsfdb) echo out.tsv ;;
    kmer | kmerhisto) echo out.histo ;;
    embed) echo out.npy out.ids.txt ;;
    bwt) echo out.bwt out.sa out.pac ;;
    trim) echo out1.fq out2.fq ;;
  esac
}

run_scaling() {
  local table=$OUT/multi-gpu-scaling.md runs=${RUNS:-3} counts=${GPU_COUNTS:-}
  if [ -z "$counts" ]; then
    local n=1
    while [ "$n" -le "$gpus" ]; do counts+=" $n"; n=$((n * 2)); done
  fi
  make_scaling_inputs || { echo "scaling inputs failed" >&2; return 1; }
  {
    echo "# Scaling over GPUs (issue 22)"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ), $gpus x $gpu_name, $threads CPU threads, bundle $commit"
    echo "- command: \`MODE=scaling RUNS=$runs WORKLOADS=\"$workloads\" bash scripts/device-multi-gpu.sh\`"
    echo "- inputs: align ${ALIGN_QUERIES:-100} queries x ${ALIGN_COPIES:-100} copies of mmseqs2-examples' DB ($(stat -c %s "$work/DB.fa" 2>/dev/null || echo 0) bytes);" \
      "kmer ${KMER_FILES:-13} x 5 M reads ($(cat "$work"/part*.fq 2>/dev/null | wc -c) bytes);" \
      "embed ${EMBED_PROTEINS:-100000} proteins ($(grep -v '^>' "$work/EP.fa" 2>/dev/null | tr -d '\n' | wc -c) residues), random 650M-shaped, bf16;" \
      "bwt ${bwt_mbp} Mbp simulated (both strands); fastq-trim ${TRIM_PAIRS:-4000000} pairs"
    [ -z "${sfdb_build_s:-}" ] || echo "- alignsfdb: \`align-db DB.fa -o DB.sfdb\` took $sfdb_build_s s (once)"
    echo
    echo "| workload | GPUs | median s | runs (s) | speed-up | efficiency | output vs 1 GPU |"
    echo "|---|---|---|---|---|---|---|"
  } >"$table"
  local failures=0 w
  for w in $workloads; do
    local base=""
    for n in $counts; do
      local dev dir times=() verdict=reference
      dev=$(device_list "$n")
      dir=$work/scale/$w/$n
      rm -rf "$dir" && mkdir -p "$dir"
      for ((r = 0; r < runs; r++)); do
        local t0 cmd
        cmd=$(scaling_command "$w" "$([ "$dry" = 1 ] && echo cpu || echo "$dev")")
        t0=$(now_ms)
        if ! (cd "$dir" && SEQFUSE_TRACE=${TRACE:-} $cmd >/dev/null 2>err.txt); then
          verdict="FAILED: $(tail -n1 "$dir/err.txt")"
          break
        fi
        times+=($(($(now_ms) - t0)))
        if [ "${TRACE:-}" = 1 ]; then
          mkdir -p "$OUT/traces"
          cp "$dir/err.txt" "$OUT/traces/${w}_${n}gpu_run$r.txt"
        fi
      done
      if [ "$verdict" = reference ] && [ "$n" != 1 ]; then
        verdict=identical
        for f in $(scaling_outputs "$w"); do
          cmp -s "$work/scale/$w/1/$f" "$dir/$f" || verdict="DIFFERENT ($f)"
        done
      fi
      if [ "$w" = bwt ] && [ "$n" = 1 ] && [ "${BWT_BWA:-0}" = 1 ] && [ "${#times[@]}" -gt 0 ]; then
        local bwa_verdict=identical f
        if ! (cd "$dir" && PATH="$repo/bundle/peers/bin:$PATH" bwa index -p bwa "$work/genome$bwt_mbp.fa" \
          >/dev/null 2>&1); then
          bwa_verdict="FAILED: bwa index"
        else
          for f in bwt sa pac ann amb; do
            cmp -s "$dir/out.$f" "$dir/bwa.$f" || bwa_verdict="DIFFERENT (.$f)"
          done
        fi
        if [ "$bwa_verdict" = identical ]; then verdict="reference, = bwa index"; else verdict="bwa index: $bwa_verdict"; fi
      fi
      case $verdict in identical | reference*) ;; *) failures=$((failures + 1)) ;; esac
      local median="-" list="-" speedup="-" eff="-"
      if [ "${#times[@]}" -gt 0 ]; then
        median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] / 1000 }')
        list=$(printf '%s\n' "${times[@]}" | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 / 1000 }')
        [ -n "$base" ] || base=$median
        speedup=$(awk -v b="$base" -v m="$median" 'BEGIN { printf "%.2fx", b / m }')
        eff=$(awk -v b="$base" -v m="$median" -v n="$n" 'BEGIN { printf "%.2f", b / m / n }')
      fi
      echo "| $w | $n ($dev) | $median | $list | $speedup | $eff | $verdict |" >>"$table"
      # The outputs of runs past one GPU are compared, then dropped (disk).
      [ "$n" = 1 ] || rm -f "$dir"/out*
    done
  done
  end_table "$table" "$failures"
}

workloads=${WORKLOADS:-align kmer embed bwt trim}
bwt_mbp=${BWT_MBP:-$([ "$dry" = 1 ] && echo 2 || echo 3100)}
status=0
case $mode in
  identity) run_identity || status=1 ;;
  scaling) run_scaling || status=1 ;;
  both) run_identity || status=1; run_scaling || status=1 ;;
  *) echo "MODE must be identity, scaling or both" >&2; exit 2 ;;
esac
exit $status
