#!/usr/bin/env bash
# Runs the whole pt2c test suite and ends with one line: `N passed, N failed`.
#   the C/C++ format check (tools/format.sh --check), C++ units (Catch2, through bazel test), lit/FileCheck pass tests, the exporter tests
#   under the PyPI torch and under Debian's torch 1.13, and the end-to-end tests.
# Sets up and builds first (tools/setup.sh is idempotent and quick when nothing changed).
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/lib/paths.sh
tools/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

LOGS=$(mktemp -d)
passed=0
failed=0
add() { passed=$((passed + $1)); failed=$((failed + $2)); }

# Code style: every tracked C/C++ file as .clang-format says (one check; a difference
# fails CI and the log names the files and the command that formats them).
if tools/format.sh --check > "$LOGS/format.log" 2>&1; then
  tail -n 1 "$LOGS/format.log"; add 1 0
else
  grep -v "^format:" "$LOGS/format.log" | head -n 20; tail -n 1 "$LOGS/format.log"; add 0 1
fi

# Catch2 suites: bazel reports one line per test target.
bazel test //tests/unit/... > "$LOGS/unit.log" 2>&1
grep -E "^//tests/unit" "$LOGS/unit.log"
add "$(grep -cE '^//tests/unit.* PASSED' "$LOGS/unit.log")" \
    "$(grep -cE '^//tests/unit.* (FAILED|NO STATUS|TIMEOUT)' "$LOGS/unit.log")"
grep -q "^ERROR" "$LOGS/unit.log" && { grep "^ERROR" "$LOGS/unit.log"; add 0 1; }

# lit + FileCheck, as the Bazel test //tests/lit:lit; each lit test counts, from lit's
# summary in the test log (a build failure leaves no summary and counts as one failure).
rm -f bazel-testlogs/tests/lit/lit/test.log
bazel test //tests/lit:lit > "$LOGS/lit-bazel.log" 2>&1
cp bazel-testlogs/tests/lit/lit/test.log "$LOGS/lit.log" 2>/dev/null || cp "$LOGS/lit-bazel.log" "$LOGS/lit.log"
grep -E "^ *(Total Discovered Tests|Passed|Failed|pt2c ::)|^ERROR" "$LOGS/lit.log"
lit_pass=$(grep -oE "Passed *: *[0-9]+" "$LOGS/lit.log" | grep -oE "[0-9]+$" || echo 0)
lit_fail=$(grep -oE "Failed *: *[0-9]+" "$LOGS/lit.log" | grep -oE "[0-9]+$" || echo 0)
[ -n "$lit_pass$lit_fail" ] && [ "$lit_pass$lit_fail" != "00" ] || lit_fail=1
add "${lit_pass:-0}" "${lit_fail:-0}"

# pytest suites; each prints "N passed, M failed" style summaries.
run_pytest() {  # name python dir...
  local name=$1 py=$2
  shift 2
  "$py" -m pytest -q -p no:cacheprovider "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  tail -n 3 "$LOGS/$name.log" | sed "s/^/[$name] /"
  local p f e
  p=$(grep -oE "[0-9]+ passed" "$LOGS/$name.log" | tail -1 | grep -oE "[0-9]+" || echo 0)
  f=$(grep -oE "[0-9]+ failed" "$LOGS/$name.log" | tail -1 | grep -oE "[0-9]+" || echo 0)
  e=$(grep -oE "[0-9]+ errors?" "$LOGS/$name.log" | tail -1 | grep -oE "[0-9]+" || echo 0)
  f=$(( ${f:-0} + ${e:-0} ))
  # A suite that crashed or collected nothing counts as a failure, never as silence.
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  add "${p:-0}" "$f"
}
export PT2C_PB2_DIR="$PWD/bazel-bin/ir/artifact"
run_pytest exporter-pypi "$PT2C_VENV/bin/python" tests/exporter
# The full torchvision sweep (PT2C_FULL_SWEEP=1, set by .ci/run) runs under torch 2.x only;
# torch 1.13 exports the sample, which keeps the suite's time in bounds.
PT2C_FULL_SWEEP=0 run_pytest exporter-torch1.13 "$PT2C_OLD_PYTHON" tests/exporter
# --durations: the log lists the slowest tests, for keeping CI within its time limit.
run_pytest e2e "$PT2C_VENV/bin/python" tests/e2e --durations=40

echo "logs: $LOGS"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
