#!/usr/bin/env bash
# Builds seqfuse and runs every test that needs no GPU. This is what CI runs.
#   scripts/test.sh           CPU build + tests, ASan/UBSan build + tests,
#                             CUDA compile (if nvcc is present), HIP compile
#   scripts/test.sh --quick   CPU build + tests only
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
[ "${1:-}" = "--quick" ] && quick=1
jobs=$(nproc)
current=""
started=$SECONDS step_started=$SECONDS
step() {  # prints each step's name and the seconds the one before it took
  [ -z "$current" ] || printf '==== %s: %d s\n' "$current" $((SECONDS - step_started))
  current=$* step_started=$SECONDS
  printf '\n==== %s\n' "$*"
}

# Ends every run, passed or not, with one line of the suites' real counts
# (scripts/test-summary.sh reads them back from the ctest logs) and a
# non-zero exit on any failure.
tested=() notes=()
finish() {
  local status=$? args=()
  trap - EXIT
  for note in "${notes[@]}"; do args+=(-n "$note"); done
  [ "$status" -eq 0 ] || args+=(-f "$current")
  printf '==== %s: %d s\n==== all steps: %d s\n' "$current" $((SECONDS - step_started)) $((SECONDS - started))
  scripts/test-summary.sh "${args[@]}" "${tested[@]}" || [ "$status" -ne 0 ] || status=1
  exit "$status"
}
trap finish EXIT

run_ctest() {  # run_ctest <label> <dir> [env assignments...]: the summary reads its logs
  local label=$1 dir=$2; shift 2
  rm -f "$dir"/Testing/Temporary/LastTest*.log  # no earlier run's counts
  tested+=("$label=$dir")
  # On every core: each test has its own temporary folder.
  (cd "$dir" && env "$@" ctest --output-on-failure -j "$jobs")
}

step "setup (Debian packages)"
# --data: the agreement tests read real reads from the example packages.
if [ $quick -eq 1 ]; then scripts/setup.sh --peers --data; else scripts/setup.sh --peers --data --hip --fuzz; fi

# The CPU, CUDA and HIP builds compile the same 200-odd host files with the
# same flags (gpu/CMakeLists.txt keeps vendor flags inside gpu/): ccache
# compiles them once. Its base folder makes the build folders' paths relative.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$PWD
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

configure_build() {  # configure_build <dir> <cmake args...>
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; return 1; }
  ninja -C "$dir" -j "$jobs"
}

step "CPU build and tests"
configure_build build -DSEQFUSE_CUDA=OFF -DSEQFUSE_HIP=OFF
run_ctest CPU build

step "install tree and Debian package (scripts/ci-package.sh)"
scripts/ci-package.sh build
notes+=("install tree + .deb + lintian ok")
[ $quick -eq 1 ] && exit 0

step "ASan + UBSan build and tests"
# -O1 and line tables only (-g1: file and line in every report): -O2 -g
# compiled 3 to 12 times slower (one test file: 384 s at -O2 -g, 172 s at
# -O2 -g1, 32 s at -O1 -g1, on 2 busy cores), and the ASan build was the
# longest step of CI (about 1200 s of 3513, 2026-11-26).
configure_build build-asan -DSEQFUSE_CUDA=OFF -DSEQFUSE_HIP=OFF -DSEQFUSE_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DSEQFUSE_BUILD_BENCH=OFF
run_ctest ASan+UBSan build-asan ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  "LSAN_OPTIONS=suppressions=$PWD/tests/lsan-htslib.supp"  # htslib 1.16 leak, see the file

step "libFuzzer harnesses (clang, ASan+UBSan; fixed time budget)"
scripts/ci-fuzz.sh
notes+=("fuzzing clean")

step "CUDA compile (sm_80 to PTX, sm_90a to machine code)"
# Both architectures' source paths compile (sm_80 has no DPX, sm_90a does);
# ptxas runs for sm_90a only.
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then
  configure_build build-cuda-check -DSEQFUSE_CUDA=ON -DSEQFUSE_HIP=OFF -DSEQFUSE_BUILD_BENCH=OFF \
    -DSEQFUSE_MAN_PAGES=OFF "-DSEQFUSE_CUDA_ARCHS=80-virtual;90a-real"
  echo "CUDA compile: ok (not run: no GPU here; [gpu] tests run on the GPU machine)"
  notes+=("CUDA compile ok")
else
  echo "CUDA compile: SKIPPED, nvcc not found (looked in /usr/local/cuda/bin and PATH)"
  notes+=("CUDA compile skipped (no nvcc)")
fi

step "HIP compile (gfx90a; Debian hipcc)"
# One AMD architecture: no source path differs between gfx90a and gfx940
# (nothing tests __gfx*), and each one more compiles every kernel again.
configure_build build-hip-check -DSEQFUSE_CUDA=OFF -DSEQFUSE_HIP=ON -DSEQFUSE_BUILD_BENCH=OFF \
  -DSEQFUSE_MAN_PAGES=OFF -DSEQFUSE_HIP_ARCHS=gfx90a
echo "HIP compile: ok (compiled and linked only; never run on an AMD GPU)"
notes+=("HIP compile ok")
