#!/usr/bin/env bash
# Builds bench/peers/seqan3_fm_build.cpp, the SeqAn 3 FM-index construction peer
# of `seqfuse bwt` (issue #16), into bundle/peers/bin/seqan3-fm-build for the GPU
# machine (Ubuntu 24.04, no Debian packages): libstdc++ and libgcc linked
# statically, zlib and bzip2 from their static archives, so the program needs only
# glibc (checked with ldd; nothing goes into bundle/peers/lib). Stripped.
#
# Needs (Debian): libseqan3-dev (3.2.0; it carries the header-only sdsl-lite 3 that
# SeqAn 3.2 requires, under /usr/include/seqan3/submodules/sdsl-lite/include),
# zlib1g-dev and libbz2-dev (static libz.a, libbz2.a), g++ >= 11.
# Not libsdsl-dev: Debian's is sdsl-lite 2.1.1, which SeqAn 3.2 rejects
# (platform.hpp static_asserts sdsl version 3); it is never on the include path.
#
# Run it AFTER scripts/device-bundle.sh, which deletes and remakes bundle/.
# Usage: scripts/build-seqan3-driver.sh [--no-strip]
# Environment: SEQAN3_DRIVER_MARCH (default x86-64-v3: AVX2/BMI2/POPCNT, which any
# H100/H200 host has; never native), CXX (default g++).
# On the GPU machine: bundle/peers/bin/seqan3-fm-build REF.fa[.gz] [--both-strands] [--bi]
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
src="$repo/bench/peers/seqan3_fm_build.cpp"
bundle="$repo/bundle"
out="$bundle/peers/bin/seqan3-fm-build"
work="$repo/build-peers"  # ignored (/build*/)
sdsl_inc=/usr/include/seqan3/submodules/sdsl-lite/include
march=${SEQAN3_DRIVER_MARCH:-x86-64-v3}
cxx=${CXX:-g++}
strip_it=1
# Libraries the GPU machine provides itself (glibc's), as in scripts/device-bundle.sh.
base_libs='^(linux-vdso|linux-gate|ld-linux[-a-z0-9_]*|libc|libm|libmvec|libdl|libpthread|librt)\.so'

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
step() { echo "build-seqan3-driver: $*"; }
die() { echo "build-seqan3-driver: error: $*" >&2; exit 1; }

for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --no-strip) strip_it=0 ;;
    *) usage >&2; die "unknown argument '$arg'" ;;
  esac
done

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in libseqan3-dev zlib1g-dev libbz2-dev; do installed "$p" || missing+=("$p"); done
((${#missing[@]} == 0)) || die "missing Debian packages: ${missing[*]} (apt-get install -y ${missing[*]})"
[ -f /usr/include/seqan3/search/fm_index/fm_index.hpp ] || die "SeqAn 3 headers not found under /usr/include/seqan3"
[ -f "$sdsl_inc/sdsl/version.hpp" ] || die "sdsl-lite 3 headers not found in $sdsl_inc (libseqan3-dev should carry them)"
command -v "$cxx" >/dev/null || die "$cxx is not installed"
[ -f "$src" ] || die "$src not found"
libz_a=$("$cxx" -print-file-name=libz.a) libbz2_a=$("$cxx" -print-file-name=libbz2.a)
{ [ -f "$libz_a" ] && [ -f "$libbz2_a" ]; } || die "static libz.a / libbz2.a not found (zlib1g-dev, libbz2-dev)"

seqan3_version=$(dpkg-query -W -f='${Version}' libseqan3-dev)
mkdir -p "$work" "$(dirname "$out")"
[ -f "$bundle/BUILD_INFO" ] || step "note: $bundle has no BUILD_INFO yet; scripts/device-bundle.sh will delete bundle/, so run this after it"

cmd=("$cxx" -std=c++20 -O3 -DNDEBUG "-march=$march" -DSEQAN3_HAS_ZLIB=1 -DSEQAN3_HAS_BZIP2=1
     -I"$sdsl_inc" "$src" -o "$work/seqan3-fm-build"
     -static-libstdc++ -static-libgcc "$libz_a" "$libbz2_a")
step "libseqan3-dev $seqan3_version, $("$cxx" --version | head -n1), -march=$march"
step "compile: ${cmd[*]}"
t0=$(date +%s)
"${cmd[@]}" || die "compile failed"
step "compiled in $(($(date +%s) - t0)) s"

# Only glibc may remain dynamic.
problems=0
while read -r line; do
  name=$(awk '{print $1}' <<<"$line")
  [[ "$line" == *"not found"* ]] && { echo "  $line" >&2; problems=$((problems + 1)); continue; }
  [[ "$(basename "$name")" =~ $base_libs ]] || { echo "  not a base library: $line" >&2; problems=$((problems + 1)); }
done < <(ldd "$work/seqan3-fm-build")
((problems == 0)) || die "seqan3-fm-build needs non-base shared libraries (above)"
step "ldd: $(ldd "$work/seqan3-fm-build" | awk '{print $1}' | tr '\n' ' ')(glibc only)"
step "glibc symbols up to: $(objdump -T "$work/seqan3-fm-build" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1) (Ubuntu 24.04 has 2.39)"

# Smoke test: two records, N and IUPAC codes, lowercase, gzip.
tiny="$work/seqan3-smoke.fa"
printf '>a\nACGTNNACGTTGCAGGCTRYKM\n>b desc\nacgtACGTTGCAGGCT\n' >"$tiny"
gzip -cf "$tiny" >"$tiny.gz"
got=$("$work/seqan3-fm-build" "$tiny.gz" --both-strands)
[[ "$got" == "bases=38 suffixes=77 "*" count=2" ]] || die "smoke test: unexpected output '$got'"
step "smoke test: $got"

cp "$work/seqan3-fm-build" "$out"
((strip_it)) && strip "$out"
step "installed $out ($(du -h "$out" | cut -f1))"
if [ -f "$bundle/BUILD_INFO" ]; then
  sed -i '/^peer=seqan3-fm-build /d' "$bundle/BUILD_INFO"
  echo "peer=seqan3-fm-build libseqan3-dev $seqan3_version (scripts/build-seqan3-driver.sh, -march=$march)" >>"$bundle/BUILD_INFO"
fi
mib=$(du -sm "$bundle" | cut -f1)
step "bundle: $(du -sh "$bundle" | cut -f1) (${mib} MiB; the tree that travels is capped at 64 MiB)"
((mib <= 60)) || die "bundle is ${mib} MiB, over 60 MiB"
step "done: on the GPU machine run bundle/peers/bin/seqan3-fm-build REF.fa[.gz] [--both-strands] [--bi]"
