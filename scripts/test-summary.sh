#!/usr/bin/env bash
# One summary line of what scripts/test.sh ran, with the real counts the
# suites print, read back from the ctest logs (nothing is run again):
#   scripts/test-summary.sh [-n NOTE]... [-f FAILED_STEP] LABEL=BUILD_DIR...
# -n adds a note (a compile step's result); -f names a step that failed
# outside ctest (a build), counted as one failure. Prints
#   test.sh: CPU build: 171 unit cases (1880573 assertions), 119 golden rows, ...: N passed, M failed
# and exits 1 when M is not 0. A test whose count line is missing (it crashed,
# or a new test prints none) counts as one test, passed or failed as ctest saw it.
set -u

notes=() failed_step="" parts=() passed=0 failed=0
while getopts "n:f:" opt; do
  case $opt in
    n) notes+=("$OPTARG") ;;
    f) failed_step=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))

# Reads one build's LastTest.log (and LastTestsFailed.log: ctest logs a test
# whose command is missing as "Test Passed." there); prints "PASSED FAILED TEXT".
counts() {
  local dir=$1/Testing/Temporary
  [ -f "$dir/LastTest.log" ] || { echo "0 0 no test log"; return; }
  # ctest leaves an earlier run's LastTestsFailed.log when every test passes.
  local failed_list=$dir/LastTestsFailed.log
  [ -f "$failed_list" ] && [ ! "$dir/LastTest.log" -nt "$failed_list" ] || failed_list=/dev/null
  awk -v failed_list="$failed_list" '
    function num(text, pattern) {  # the first number in the first match of pattern
      if (!match(text, pattern)) return -1
      text = substr(text, RSTART, RLENGTH); sub(/^[^0-9]*/, "", text)
      return text + 0
    }
    function add(key, what) { part[key] = part[key] (part[key] == "" ? "" : ", ") what }
    BEGIN {
      while ((getline line < failed_list) > 0) { sub(/^[0-9]+:/, "", line); bad[line] = 1 }
    }
    /^[0-9]+\/[0-9]+ Testing: / { name = $3; got = ""; key = 0; p = 0; f = 0; next }
    # Catch2: "All tests passed (A assertions in C test cases)" or, on failure,
    # "test cases: C | P passed | F failed" and "assertions: A | ..." (zero columns left out).
    /^All tests passed \(/ {
      got = num($0, "in [0-9]+ test case") " unit cases (" num($0, "[0-9]+ assertion") " assertions)"
      p = num($0, "in [0-9]+ test case"); key = 1
    }
    /^test cases: / {
      cases = num($0, "[0-9]+"); p = num($0, "[0-9]+ passed"); f = num($0, "[0-9]+ failed")
      if (p < 0) p = 0
      if (f < 0) f = 0
      got = cases " unit cases"; key = 1
    }
    /^assertions: / && got != "" { got = got " (" num($0, "[0-9]+") " assertions)" }
    /^cli golden: [0-9]+ passed, [0-9]+ failed/ {
      p = num($0, "[0-9]+ passed"); f = num($0, "[0-9]+ failed"); got = (p + f) " golden rows"; key = 2
    }
    /^kmer vs jellyfish: [0-9]+ comparisons/ { p = num($0, "[0-9]+"); got = p " jellyfish comparisons"; key = 3 }
    /^bwt vs bwa: [0-9]+ index files/ { p = num($0, "[0-9]+"); got = p " bwa index files"; key = 4 }
    /^fastq-trim vs fastp: [0-9]+ files/ { p = num($0, "[0-9]+"); got = p " fastp files"; key = 5 }
    /^align merge: [0-9]+ passed, [0-9]+ failed/ {
      p = num($0, "[0-9]+ passed"); f = num($0, "[0-9]+ failed"); got = (p + f) " align-merge comparisons"; key = 6
    }
    /^Test (Passed|Failed)\./ {
      ok = ($0 ~ /Passed/) && !(name in bad)
      if (got != "") {
        add(key, got); passed += p; failed += f
        if (!ok && f == 0) { failed++; add(key, name " FAILED") }
      } else if (ok) {
        others++; passed++
      } else {
        failed++; add(7, name " FAILED")
      }
      name = ""; got = ""
    }
    END {
      if (others) add(8, others " other ctest test" (others > 1 ? "s" : ""))
      for (key = 1; key <= 8; key++)
        if (part[key] != "") text = text (text == "" ? "" : ", ") part[key]
      if (text == "") text = "no tests"
      print passed + 0, failed + 0, text
    }' "$dir/LastTest.log"
}

previous=""
for arg in "$@"; do
  label=${arg%%=*} dir=${arg#*=}
  read -r p f text < <(counts "$dir")
  passed=$((passed + p)) failed=$((failed + f))
  # A second build with the same counts says so instead of repeating them.
  if [ "$text" = "$previous" ]; then parts+=("$label build: the same"); else parts+=("$label build: $text"); fi
  previous=$text
done
parts+=("${notes[@]}")
if [ -n "$failed_step" ]; then
  parts+=("stopped: $failed_step failed")
  [ "$failed" -gt 0 ] || failed=1
fi

line="test.sh: "
for i in "${!parts[@]}"; do line+="${parts[i]}"; [ "$i" -lt $((${#parts[@]} - 1)) ] && line+="; "; done
echo "$line: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
