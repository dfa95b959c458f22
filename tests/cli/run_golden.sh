#!/usr/bin/env bash
# Golden CLI tests, one row per case (htslib-style table), in golden.tsv:
#   <exit status> TAB <stdout check> TAB <stderr check> TAB <shell command>
# Checks: "-" anything; "=FILE" equals tests/cli/expected/FILE; "~REGEX" some
# line matches (grep -E); "" empty. Commands see $SEQFUSE (the binary) and
# $DATA (tests/data) and run in a fresh empty folder; a failing case
# (non-zero status) must leave that folder as it found it: no partial output.
set -u
export LC_ALL=C  # expected files are sorted bytewise
seqfuse=$(realpath "$1")
table=$(realpath "$2")
here=$(dirname "$table")
export SEQFUSE="$seqfuse" DATA="$here/../data"
pass=0 fail=0 n=0

check() {  # check <what> <file> <spec>
  local what=$1 file=$2 spec=$3
  case "$spec" in
    -) return 0 ;;
    "") [ ! -s "$file" ] && return 0 ;;
    =*) cmp -s "$file" "$here/expected/${spec#=}" && return 0 ;;
    "~"*) grep -Eq -- "${spec#\~}" "$file" && return 0 ;;
  esac
  echo "    $what does not match '$spec'; it was:"; sed 's/^/      | /' "$file" | head -20
  return 1
}

while IFS=$'\037' read -r status out err cmd; do
  [[ -z "$status" || "$status" == \#* ]] && continue
  n=$((n + 1))
  work=$(mktemp -d)
  ( cd "$work" && mkdir inputs && bash -c "$cmd" >"$work.out" 2>"$work.err" </dev/null )
  got=$?
  ok=1
  [ "$got" -eq "$status" ] || { echo "    exit status $got, expected $status"; ok=0; }
  check stdout "$work.out" "$out" || ok=0
  check stderr "$work.err" "$err" || ok=0
  if [ "$status" -ne 0 ]; then
    lines=$(wc -l < "$work.err")
    [ "$lines" -eq 1 ] || { echo "    error output is $lines lines, expected 1"; ok=0; }
    left=$(cd "$work" && find . -mindepth 1 -not -path './inputs' -not -path './inputs/*' | head -3)
    [ -z "$left" ] || { echo "    failed run left files: $left"; ok=0; }
  fi
  if [ $ok -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $n: $cmd"; fi
  rm -rf "$work" "$work.out" "$work.err"
done < <(tr '\t' '\037' < "$table")

echo "cli golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
