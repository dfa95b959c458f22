#!/usr/bin/env bash
# Checks the install tree and the Debian package of a configured build.
#   scripts/ci-package.sh [BUILD_DIR]     (default: build; scripts/test.sh runs it)
# 1. cmake --install into a temporary prefix; checks every installed file.
# 2. cpack -G DEB; prints its Depends (dpkg-shlibdeps) and runs lintian:
#    errors and warnings fail (none today; a warning to tolerate goes to a
#    lintian overrides file with its reason, cmake/SeqfuseInstall.cmake),
#    info tags are printed.
# 3. Extracts the .deb and runs `seqfuse info` and one alignment from it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
[ -f "$build/CMakeCache.txt" ] || { echo "ci-package: $build is not a configured build" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS

ninja -C "$build" seqfuse seqfuse_man >/dev/null

echo "-- install tree"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
expected=(bin/seqfuse
          share/bash-completion/completions/seqfuse share/zsh/vendor-completions/_seqfuse
          share/doc/seqfuse/README.md share/doc/seqfuse/LICENSE share/doc/seqfuse/CITATION.cff
          share/doc/seqfuse/copyright share/doc/seqfuse/changelog.gz share/doc/seqfuse/docs/align.md
          share/doc/seqfuse/workflow/Snakefile share/doc/seqfuse/workflow/config.yaml
          share/doc/seqfuse/workflow/README.md)
for page in seqfuse seqfuse-align-nw seqfuse-align-sw seqfuse-align-merge seqfuse-kmer-count seqfuse-bwt \
            seqfuse-fastq-trim seqfuse-embed seqfuse-info; do
  expected+=("share/man/man1/$page.1.gz")
done
missing=0
for f in "${expected[@]}"; do
  [ -s "$prefix/$f" ] || { echo "ci-package: missing from the install tree: $f" >&2; missing=1; }
done
[ $missing -eq 0 ]
# Nothing else: a test binary or a stray header in the tree is a mistake.
extra=$(cd "$prefix" && find . -type f | sed 's|^\./||' | sort |
        comm -23 - <(printf '%s\n' "${expected[@]}" | sort) | grep -v '^share/doc/seqfuse/docs/' || true)
[ -z "$extra" ] || { echo "ci-package: unexpected files installed: $extra" >&2; exit 1; }
"$prefix/bin/seqfuse" --version | grep -q '^commit: '
man -l "$prefix/share/man/man1/seqfuse-align-sw.1.gz" 2>/dev/null | grep -q -- '--gap-open' \
  || zcat "$prefix/share/man/man1/seqfuse-align-sw.1.gz" | grep -q 'gap\\-open'
bash -c "source '$prefix/share/bash-completion/completions/seqfuse' && complete -p seqfuse" >/dev/null
echo "   $(cd "$prefix" && find . -type f | wc -l) files, all expected"

echo "-- Debian package"
(cd "$build" && cpack -G DEB >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
deb=$(ls -t "$build"/seqfuse_*.deb | head -1)
echo "   $(basename "$deb"): $(du -h "$deb" | cut -f1)"
echo "   Depends: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -f "$deb" Depends | grep -q libhts || { echo "ci-package: Depends lacks htslib" >&2; exit 1; }

echo "-- lintian"
if command -v lintian >/dev/null; then
  # Errors and warnings fail CI; info tags are shown, not fatal. (lintian
  # complains about running as root on a CI container: not about the package.)
  if ! lintian --fail-on error,warning --display-info "$deb" >"$work/lintian.txt" 2>&1; then
    sed 's/^/   /' "$work/lintian.txt"
    echo "ci-package: lintian found errors or warnings" >&2
    exit 1
  fi
  grep -v 'root privileges' "$work/lintian.txt" | sed 's/^/   /' || true
  echo "   lintian: no errors, no warnings"
else
  echo "ci-package: lintian not found (scripts/setup.sh installs it)" >&2
  exit 1
fi

echo "-- the extracted package runs"
dpkg-deb -x "$deb" "$work/root"
seqfuse=$work/root/usr/bin/seqfuse
"$seqfuse" info --quiet | sed -n '1,3p' | sed 's/^/   /'
"$seqfuse" align-sw tests/data/align/lambda_queries.fa tests/data/align/lambda_targets.fa \
  --top 1 -q -o "$work/hits.tsv.gz"
rows=$(zcat "$work/hits.tsv.gz" | wc -l)
[ "$rows" -gt 1 ] || { echo "ci-package: the packaged binary aligned nothing" >&2; exit 1; }
echo "   align-sw from the package: $((rows - 1)) hits (gzip output)"
echo "ci-package: ok in $((SECONDS - start)) s"
