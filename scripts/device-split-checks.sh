#!/usr/bin/env bash
# One held machine with two or more GPUs does a session's checks at once:
# the [gpu] test suite on the first card, pinned to the first half of the
# host's cores, while benchmark scripts run one after another on the second
# card with the other half. Neither disturbs the other's GPU; host memory
# bandwidth is shared, so a benchmark here times seqfuse and its peer under
# the same load (compare within a run, as always), not on an idle host.
# Then AFTER (a command line, optional) runs on the whole machine, e.g. the
# multi-GPU identity checks.
#
# Environment: TEST_TAGS (default "[gpu]"), BENCHES (scripts run from the
# repo root, each with OUT=$OUT/<script name>), AFTER, OUT. Writes
# $OUT/gpu-tests.log and each bench's output under $OUT. Needs bundle/.
set -uo pipefail
# shellcheck source=scripts/device-env.sh
source scripts/device-env.sh
prepare_bundle >/dev/null
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
cores=$(nproc)
half=$((cores / 2))
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -lt 2 ]; then
  echo "device-split-checks: needs two GPUs, found $gpus" >&2
  exit 2
fi
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
echo "bundle $(sed -n 's/^commit=//p' bundle/BUILD_INFO); $cores cores: tests on GPU 0 with cores 0-$((half - 1)), benches on GPU 1 with cores $half-$((cores - 1))"

t0=$(date +%s)
(
  CUDA_VISIBLE_DEVICES=0 SEQFUSE_TEST_DATA_DIR=$PWD/tests/data \
    taskset -c "0-$((half - 1))" bundle/bin/seqfuse_tests "${TEST_TAGS:-[gpu]}" >"$OUT/gpu-tests.log" 2>&1
  echo "tests exit $? after $(($(date +%s) - t0)) s" >>"$OUT/gpu-tests.log"
) &
tests=$!

status=0
for bench in ${BENCHES:-}; do
  name=$(basename "$bench" .sh)
  echo "== $name (GPU 1) at $(($(date +%s) - t0)) s"
  mkdir -p "$OUT/$name"
  CUDA_VISIBLE_DEVICES=1 OUT=$OUT/$name taskset -c "$half-$((cores - 1))" bash "$bench" \
    >"$OUT/$name/log.txt" 2>&1 || { echo "$name: exit $?"; status=1; }
  tail -n 30 "$OUT/$name/log.txt"
done

wait "$tests"
echo "== [gpu] tests (GPU 0)"
tail -n 25 "$OUT/gpu-tests.log"
grep -q "^tests exit 0 " "$OUT/gpu-tests.log" || status=1

if [ -n "${AFTER:-}" ]; then
  echo "== after: $AFTER ($(($(date +%s) - t0)) s)"
  bash -c "$AFTER" || status=1
fi
echo "device-split-checks: done in $(($(date +%s) - t0)) s, status $status"
exit "$status"
