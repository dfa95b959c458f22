# shellcheck shell=bash
# Sourced by the scripts/device-*.sh steps that run on the GPU machine with
# bundle/ carried (device-run.sh does the same for its own steps):
#   prepare_bundle  unpacks bundle/libs.tar.xz in place once, and puts the
#                   machine's CUDA lib64 (cuBLASLt, not carried) on the
#                   library path
#   find_ncu        prints the path of Nsight Compute's ncu, or nothing
#   with_bundle_libs CMD...  runs CMD with bundle/lib first on the library
#                   path: for another seqfuse build carried beside the bundle
#                   (a baseline), which has no rpath to it
#   now_ms          prints the wall clock in milliseconds
#   median_of N...  prints the median of its arguments (the lower middle one
#                   of an even count)
#   first_records N FILE  prints the first N records of a FASTA file, gzip
#                   or plain (it stops reading there)
# Call from the repo root.

prepare_bundle() {
  if [ -f bundle/libs.tar.xz ] && [ ! -d bundle/lib ]; then
    xz -dc bundle/libs.tar.xz | tar -C bundle -xf -
  fi
  local cuda_lib
  for cuda_lib in /usr/local/cuda-13.0/lib64 /usr/local/cuda/lib64; do
    [ -d "$cuda_lib" ] || continue
    case ":${LD_LIBRARY_PATH:-}:" in
      *":$cuda_lib:"*) ;;
      *) export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$cuda_lib" ;;
    esac
    break
  done
}

find_ncu() {
  command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1 ||
    true
}

with_bundle_libs() {
  LD_LIBRARY_PATH="$PWD/bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

median_of() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# awk leaves after record N; gzip's broken pipe then is expected.
first_records() { { gzip -dcf "$2" || true; } | awk -v n="$1" '/^>/ { if (++k > n) exit } { print }'; }
