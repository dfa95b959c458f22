#!/usr/bin/env bash
# Runs on the GPU machine, from the repo root, with bundle/ carried (made here
# by scripts/device-bundle.sh): machine header, seqfuse info, the [gpu] tests,
# the CPU tests, the golden CLI tests and, with --bench, bench/run.sh with the
# bundled peer tools. Every step runs even when an earlier one fails; each is
# logged to $OUT/device-run.log, and a summary table (step, status, seconds)
# is the last thing printed, because only the output's tail comes back.
#
# Usage: bash scripts/device-run.sh [--bench] [--quick] [--no-cpu-tests]
#   --bench   also run the benchmarks (results page and JSON land in $OUT)
#   --quick   with --bench: 50 MB inputs and 3 runs, to check the plumbing
#   --no-cpu-tests  leave out the CPU unit tests (CI runs them) to save time
# Environment: BENCH_ONLY (space-separated bench/run.sh cases; default all);
# BENCH_ARGS (more bench/run.sh arguments, e.g. "--runs 5 --warmup 1");
# GPU_TESTS (the Catch2 filter of the GPU test step, default '[gpu]');
# DEVICE_EXTRA (scripts, space-separated, each run as a last step, e.g. traced runs, its output
# in the log);
# OUT (default ./device-out, for a dry run on a machine without a
# GPU, where the [gpu] step fails as expected); DEVICE_RUN_BUDGET_S (default
# 570: the tool stops a command at 600 s, and the summary must still print).
# Writes: $OUT/device-run.log, info.txt, summary.txt and, with --bench, the
# results page <date>-<machine>.md (copy it to bench/results/) and bench-json.tar.gz.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export OUT
log="$OUT/device-run.log"
bench=0 quick=0 cpu_tests=1
budget_s=${DEVICE_RUN_BUDGET_S:-570}
started_ns=$(date +%s%N)
steps=() statuses=() durations=()

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
say() { echo "$*" | tee -a "$log"; }

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
fmt_s() { printf '%d.%d' $(($1 / 1000)) $((($1 % 1000) / 100)); }  # ms -> s, no bc

# run_step NAME LIMIT_S CMD...: runs CMD under a time limit that also fits the
# whole run's budget, tees its output to the log, and records status and time.
run_step() {
  local name=$1 limit=$2 left t0 rc status
  shift 2
  left=$((budget_s - $(ms_since "$started_ns") / 1000 - 15))
  ((left < limit)) && limit=$left
  say ""
  say "=== step $name: $* (limit ${limit}s)"
  if ((limit < 5)); then
    say "=== step $name: NOT RUN, the run's ${budget_s}s budget is spent"
    steps+=("$name") statuses+=("no-time") durations+=(0)
    return 0
  fi
  t0=$(date +%s%N)
  set +e
  timeout -k 10 "$limit" "$@" 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  set -e
  case $rc in
    0) status=ok ;;
    124|137) status="TIMEOUT" ;;
    *) status="FAIL($rc)" ;;
  esac
  steps+=("$name") statuses+=("$status") durations+=("$(ms_since "$t0")")
  say "=== step $name: $status in $(fmt_s "${durations[-1]}") s"
}

header() {
  echo "date: $(date -u +%FT%TZ)"
  if command -v nvidia-smi >/dev/null &&
     gpus=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1); then
    echo "gpu: $gpus"
  else
    echo "gpu: none (nvidia-smi: ${gpus:-not installed})"
  fi
  echo "cores: $(nproc); $(uname -srm); $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}")"
  echo "cuda libs: ${cuda_lib:-none found}"
  if [ -f bundle/BUILD_INFO ]; then
    sed 's/^/bundle: /' bundle/BUILD_INFO
  else
    echo "bundle: MISSING (run scripts/device-bundle.sh here and carry 'bundle')"
    return 1
  fi
}

info() {
  bundle/bin/seqfuse info >"$OUT/info.txt" 2>&1
  local rc=$?
  cat "$OUT/info.txt"
  return $rc
}

bench_cases() {
  local args=(--work /tmp/seqfuse-bench --results-dir "$OUT" --json-dir /tmp/seqfuse-bench/json)
  ((quick)) && args+=(--quick)
  local c
  for c in ${BENCH_ONLY:-}; do args+=(--only "$c"); done  # e.g. BENCH_ONLY=protein_search
  # shellcheck disable=SC2206  # word splitting of BENCH_ARGS is intended
  args+=(${BENCH_ARGS:-})
  bench/run.sh "${args[@]}"
}

# seqfuse_tests reads tests/data through the path compiled in here (see
# bundle/BUILD_INFO); the repo lands elsewhere on the GPU machine, so link that
# path to this copy when it does not exist. Harmless where it exists.
link_test_data() {
  local want
  want=$(sed -n 's/^test_data_dir=//p' bundle/BUILD_INFO 2>/dev/null) || true
  export SEQFUSE_TEST_DATA_DIR="$repo/tests/data"
  [ -n "$want" ] && [ ! -e "$want" ] || return 0
  if mkdir -p "$(dirname "$want")" 2>/dev/null && ln -sfn "$repo/tests/data" "$want"; then
    say "test data: linked $want -> $repo/tests/data"
  else
    say "test data: WARNING: cannot create $want; tests reading tests/data will fail"
  fi
}

summary() {
  local i failed=0 total_ms
  total_ms=$(ms_since "$started_ns")
  for i in "${!statuses[@]}"; do
    [ "${statuses[$i]}" = ok ] || failed=$((failed + 1))
  done
  {
    echo ""
    echo "== device-run summary ($(sed -n 's/^gpu: //p' "$OUT/header.tmp" 2>/dev/null | head -n1))"
    printf '%-10s %-10s %8s\n' step status seconds
    for i in "${!steps[@]}"; do
      printf '%-10s %-10s %8s\n' "${steps[$i]}" "${statuses[$i]}" "$(fmt_s "${durations[$i]}")"
    done
    echo "result: $failed of ${#steps[@]} steps failed; $(fmt_s "$total_ms") s; files in $OUT: $(cd "$OUT" && ls | grep -v '\.tmp$' | tr '\n' ' ')"
  } | tee "$OUT/summary.txt" | tee -a "$log"
  rm -f "$OUT/header.tmp"
  return $((failed > 0))
}

main() {
  local arg
  for arg in "$@"; do
    case "$arg" in
      -h|--help) usage; exit 0 ;;
      --bench) bench=1 ;;
      --quick) quick=1 ;;
      --no-cpu-tests) cpu_tests=0 ;;
      *) usage >&2; echo "device-run.sh: error: unknown argument '$arg'" >&2; exit 2 ;;
    esac
  done
  : >"$log"
  # device-bundle.sh packs the bundle's shared libraries to fit the carry.
  if [ -f bundle/libs.tar.xz ] && [ ! -d bundle/lib ]; then
    xz -dc bundle/libs.tar.xz | tar -C bundle -xf -
  fi
  # The machine's CUDA libraries (cuBLAS) are linked from there, not carried.
  cuda_lib=""
  for arg in /usr/local/cuda-13.0/lib64 /usr/local/cuda/lib64; do
    [ -d "$arg" ] && { cuda_lib=$arg; break; }
  done
  [ -z "$cuda_lib" ] || export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$cuda_lib"
  export PATH="$repo/bundle/peers/bin:$PATH"  # peers for tests and benchmarks
  export cuda_lib

  # Steps that are shell functions run in a child bash (timeout needs a
  # program), so they are exported.
  export -f header info bench_cases
  export quick
  run_step header 30 bash -c 'set -o pipefail; header | tee "$OUT/header.tmp"'
  link_test_data
  run_step info 60 bash -c info
  run_step gpu-tests 300 bundle/bin/seqfuse_tests "${GPU_TESTS:-[gpu]}" --reporter compact
  ((cpu_tests)) && run_step cpu-tests 300 bundle/bin/seqfuse_tests '~[gpu]'
  run_step golden 120 bash tests/cli/run_golden.sh bundle/bin/seqfuse tests/cli/golden.tsv
  if ((bench)); then
    rm -rf /tmp/seqfuse-bench/json  # only this run's JSON goes back
    run_step bench 450 bash -c bench_cases
    if [ -d /tmp/seqfuse-bench/json ]; then
      tar -C /tmp/seqfuse-bench -czf "$OUT/bench-json.tar.gz" json
    fi
  fi
  local extra
  for extra in ${DEVICE_EXTRA:-}; do run_step "$(basename "$extra" .sh)" 300 bash "$extra"; done
  summary
}

main "$@"
