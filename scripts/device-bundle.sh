#!/usr/bin/env bash
# Builds the CUDA release here and assembles bundle/ (git-ignored), the folder
# carried to the GPU machine, which has CUDA but no htslib and no peer tools:
#   bundle/bin/        seqfuse, seqfuse_tests, seqfuse-io-bench (when built),
#                      rpath $ORIGIN/../lib
#   bundle/lib/        their shared libraries (htslib and its codecs), rpath $ORIGIN
#   bundle/peers/bin/  Debian's parasail_aligner, jellyfish, kmc, kmc_tools, fastp,
#                      bwa, hyperfine, rpath $ORIGIN/../lib
#   bundle/peers/lib/  their shared libraries (libgomp too), rpath $ORIGIN
#   bundle/data/       with --data: the small real inputs bench/run.sh expands
#   bundle/BUILD_INFO  commit, compiler, archs, test-data path, tool versions
# Left out, because the GPU machine has newer ones (Ubuntu 24.04, CUDA 13.0):
# glibc's libraries, libstdc++, libgcc_s, and the CUDA toolkit and driver's.
#
# Usage: scripts/device-bundle.sh [--data] [--no-build] [--build-dir DIR]
#   --data          also copy the benchmark seeds into bundle/data
#   --no-build      use the existing build (skip cmake and ninja)
#   --build-dir DIR build folder (default build-bundle)
# Environment: BUNDLE_CUDA_ARCHS (default 90a-real: the GPU machine is an
# H100 or H200; one architecture halves the CUDA compile time here).
# Then carry `bundle` and run `bash scripts/device-run.sh` there.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bundle="$repo/bundle"
build_dir="$repo/build-bundle"
with_data=0 do_build=1
programs=(seqfuse seqfuse_tests seqfuse-io-bench seqfuse-simulate-reads seqfuse-dp-pipes)
optional_programs=(seqfuse-io-bench seqfuse-simulate-reads seqfuse-dp-pipes)  # benchmarks only
peer_tools=(parasail_aligner jellyfish kmc kmc_tools fastp bwa hyperfine)
warn_mib=50 max_mib=60

# Libraries the GPU machine provides itself. All of glibc is here (libresolv,
# libutil, ...), not only libc: glibc's parts call each other's private
# symbols, so a Debian libresolv beside Ubuntu's libc would fail to load.
base_libs='^(linux-vdso|linux-gate|ld-linux[-a-z0-9_]*|libc|libm|libmvec|libdl|libpthread|librt|libresolv|libutil|libnsl|libanl|libBrokenLocale|libthread_db|libnss_[a-z0-9_]+|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt|libnvrtc[-a-z0-9_]*|libnvidia-[-a-z0-9_]+)\.so'

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
step() { echo "device-bundle: $*"; }
die() { echo "device-bundle: error: $*" >&2; exit 1; }

need() {
  local t
  for t in "$@"; do command -v "$t" >/dev/null || die "$t is not installed (scripts/setup.sh --peers)"; done
}

build() {
  # Logs stay inside the (ignored) build folder so they never travel.
  local cfg_log="$build_dir/device-bundle-configure.log" build_log="$build_dir/device-bundle-build.log"
  mkdir -p "$build_dir"
  step "configure $build_dir (CUDA on, bundle rpath, Release)"
  cmake -S "$repo" -B "$build_dir" -G Ninja -DSEQFUSE_CUDA=ON -DSEQFUSE_BUNDLE_RPATH=ON \
    -DCMAKE_BUILD_TYPE=Release -DSEQFUSE_CUDA_ARCHS="${BUNDLE_CUDA_ARCHS:-90a-real}" >"$cfg_log" 2>&1 ||
    { tail -n 30 "$cfg_log" >&2; die "cmake failed (log: $cfg_log)"; }
  step "build with ninja (a CUDA build takes minutes here)"
  ninja -C "$build_dir" >"$build_log" 2>&1 ||
    { tail -n 40 "$build_log" >&2; die "ninja failed (log: $build_log)"; }
}

built_program() {  # path of a program in the build folder, empty when absent
  local p
  p=$(find "$build_dir" -name "$1" -type f -perm -u+x -print -quit 2>/dev/null)
  echo "$p"
}

# rpath of an ELF file (RPATH or RUNPATH), empty when none.
elf_rpath() {
  readelf -d "$1" | sed -n 's/.*(\(RPATH\|RUNPATH\)).*\[\(.*\)\]$/\2/p'
}

is_elf() { file -L "$1" | grep -q 'ELF'; }

soname() {  # SONAME of a library, or its file name when it has none
  local s
  s=$(readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
  echo "${s:-$(basename "$1")}"
}

# Copies every non-base shared library that the given ELF files need (ldd
# lists the whole closure) into DEST under its SONAME, with rpath $ORIGIN so
# that each library finds its own dependencies beside it: RUNPATH in the
# program applies to its direct needs only.
copy_libs() {
  local dest=$1 elf line name path so
  shift
  mkdir -p "$dest"
  for elf in "$@"; do
    if ldd "$elf" | grep -q 'not found'; then
      ldd "$elf" | grep 'not found' >&2
      die "$elf needs libraries that are not installed here"
    fi
    while read -r line; do
      name=$(awk '{print $1}' <<<"$line")
      path=$(awk '$2 == "=>" {print $3}' <<<"$line")
      [ -n "$path" ] && [ -f "$path" ] || continue
      [[ "$(basename "$name")" =~ $base_libs ]] && continue
      so=$(soname "$path")
      [[ "$so" =~ $base_libs ]] && continue
      [ -f "$dest/$so" ] && continue
      cp -L "$path" "$dest/$so"
      chmod u+w "$dest/$so"
      patchelf --set-rpath '$ORIGIN' --force-rpath "$dest/$so"
    done < <(ldd "$elf")
  done
}

bundle_programs() {
  local prog src have=()
  mkdir -p "$bundle/bin"
  for prog in "${programs[@]}"; do
    src=$(built_program "$prog")
    if [ -z "$src" ]; then
      if printf '%s\n' "${optional_programs[@]}" | grep -qxF "$prog"; then
        step "bin: $prog not built (optional; its benchmarks will be skipped)"
        continue
      fi
      die "$prog was not built in $build_dir"
    fi
    cp -L "$src" "$bundle/bin/$prog"
    # CMake sets $ORIGIN/../lib with SEQFUSE_BUNDLE_RPATH; repair it if a build
    # folder was configured without it.
    if [[ "$(elf_rpath "$bundle/bin/$prog")" != *'$ORIGIN/../lib'* ]]; then
      step "bin: $prog had rpath '$(elf_rpath "$bundle/bin/$prog")'; setting \$ORIGIN/../lib"
      patchelf --set-rpath '$ORIGIN/../lib' "$bundle/bin/$prog"
    fi
    have+=("$prog")
  done
  step "bin: ${have[*]} (rpath $(elf_rpath "$bundle/bin/seqfuse"))"
  copy_libs "$bundle/lib" "${have[@]/#/$bundle/bin/}"
  step "lib: $(cd "$bundle/lib" && ls | tr '\n' ' ')"
}

# The real ELF behind a tool name: Debian sometimes installs a wrapper script
# in /usr/bin; then look for the ELF of that name in the owning package.
tool_elf() {
  local tool=$1 path pkg candidate
  path=$(command -v "$tool" 2>/dev/null) || return 0
  path=$(readlink -f "$path")
  if is_elf "$path"; then echo "$path"; return 0; fi
  pkg=$(dpkg -S "$path" 2>/dev/null | head -n1 | cut -d: -f1) || true
  [ -n "$pkg" ] || return 0
  while read -r candidate; do
    [ -f "$candidate" ] && [ -x "$candidate" ] && is_elf "$candidate" && { echo "$candidate"; return 0; }
  done < <(dpkg -L "$pkg" | grep -E "/${tool}[^/]*\$")
}

bundle_peers() {
  local tool elf have=() missing=()
  mkdir -p "$bundle/peers/bin"
  for tool in "${peer_tools[@]}"; do
    elf=$(tool_elf "$tool")
    if [ -z "$elf" ]; then missing+=("$tool"); continue; fi
    cp -L "$elf" "$bundle/peers/bin/$tool"
    chmod u+w "$bundle/peers/bin/$tool"
    patchelf --set-rpath '$ORIGIN/../lib' --force-rpath "$bundle/peers/bin/$tool"
    have+=("$tool")
  done
  step "peers: ${have[*]:-none}${missing[*]:+; MISSING (not installed here): ${missing[*]}}"
  ((${#have[@]})) || return 0
  copy_libs "$bundle/peers/lib" "${have[@]/#/$bundle/peers/bin/}"
  step "peers lib: $(cd "$bundle/peers/lib" && ls | tr '\n' ' ')"
}

write_build_info() {
  local commit tool v
  commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$repo" diff --quiet HEAD 2>/dev/null || commit+="+dirty"
  {
    echo "commit=$commit"
    echo "built=$(date -u +%FT%TZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "nvcc=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([^,]*\).*/\1/p')"
    echo "cxx=$(c++ --version | head -n1)"
    echo "cuda_archs=$(sed -n 's/^SEQFUSE_CUDA_ARCHS:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
    echo "build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
    # seqfuse_tests finds tests/data through this compiled-in path; device-run.sh
    # makes it exist on the GPU machine (the repo lands elsewhere there).
    echo "test_data_dir=$repo/tests/data"
    echo "version=$("$bundle/bin/seqfuse" --version 2>/dev/null | head -n1)"
    for tool in "$bundle"/peers/bin/*; do
      [ -e "$tool" ] || continue
      v=$(dpkg -S "$(readlink -f "$(command -v "$(basename "$tool")")")" 2>/dev/null | head -n1 | cut -d: -f1) || true
      [ -n "$v" ] && v="$v $(dpkg-query -W -f='${Version}' "$v" 2>/dev/null)"
      echo "peer=$(basename "$tool") ${v:-unknown package}"
    done
  } >"$bundle/BUILD_INFO"
  step "BUILD_INFO: $(head -n1 "$bundle/BUILD_INFO"), $(grep -c '^peer=' "$bundle/BUILD_INFO") peers"
}

# Self-containment: with an empty environment every program must start and
# every library it loads must be a base one or come from the bundle.
verify() {
  local elf line path problems=0
  for elf in "$bundle"/bin/* "$bundle"/peers/bin/*; do
    while read -r line; do
      path=$(awk '$2 == "=>" {print $3}' <<<"$line")
      if [[ "$line" == *"not found"* ]]; then
        echo "  $(basename "$elf"): $line" >&2; problems=$((problems + 1)); continue
      fi
      [ -n "$path" ] || continue
      [[ "$(basename "$path")" =~ $base_libs ]] && continue
      if [[ "$(readlink -f "$path")" != "$bundle"/* ]]; then
        echo "  $(basename "$elf"): $(basename "$path") resolves outside the bundle: $path" >&2
        problems=$((problems + 1))
      fi
    done < <(env -i PATH=/usr/bin:/bin ldd "$elf")
  done
  env -i PATH=/usr/bin:/bin "$bundle/bin/seqfuse" --version >/dev/null ||
    { echo "  seqfuse --version failed in an empty environment" >&2; problems=$((problems + 1)); }
  ((problems == 0)) || die "bundle is not self-contained ($problems problem(s) above)"
  step "verify: every non-base library resolves inside bundle/ (ldd, empty environment)"
}

# The shared libraries (OpenBLAS alone is 37 MiB) travel as one xz archive
# that scripts/device-run.sh unpacks in place before anything runs.
pack_libs() {
  local dirs=()
  [ -d "$bundle/lib" ] && dirs+=(lib)
  [ -d "$bundle/peers/lib" ] && dirs+=(peers/lib)
  ((${#dirs[@]})) || return 0
  tar -C "$bundle" -cf - "${dirs[@]}" | xz -T0 -6 >"$bundle/libs.tar.xz"
  (cd "$bundle" && rm -rf "${dirs[@]}")
  step "libs: ${dirs[*]} packed into libs.tar.xz ($(du -h "$bundle/libs.tar.xz" | cut -f1); device-run.sh unpacks it)"
}

check_size() {
  local mib
  mib=$(du -sm "$bundle" | cut -f1)
  step "size: $(du -sh "$bundle" | cut -f1) (${mib} MiB; the tree that travels is capped at 64 MiB)"
  ((mib <= max_mib)) || die "bundle is ${mib} MiB, over ${max_mib} MiB: drop --data or strip binaries"
  ((mib <= warn_mib)) || step "WARNING: bundle is over ${warn_mib} MiB; little room is left for the repo"
}

main() {
  while (($#)); do
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --data) with_data=1; shift ;;
      --no-build) do_build=0; shift ;;
      --build-dir) (($# >= 2)) || die "--build-dir needs a value"; build_dir=$(realpath -m "$2"); shift 2 ;;
      *) usage >&2; die "unknown argument '$1'" ;;
    esac
  done
  need cmake ninja readelf patchelf ldd file
  if ((do_build)); then build; else step "build: skipped (--no-build), using $build_dir"; fi
  step "reset $bundle"
  rm -rf "$bundle"
  mkdir -p "$bundle"
  bundle_programs
  bundle_peers
  if ((with_data)); then
    "$repo/scripts/make-bench-data.sh" --seeds-into "$bundle/data"
    step "data: $(cd "$bundle/data" && ls | tr '\n' ' ')"
  fi
  write_build_info
  verify
  pack_libs
  check_size
  step "done: carry 'bundle' and run: bash scripts/device-run.sh [--bench] [--quick]"
}

main "$@"
