#!/usr/bin/env bash
# //tests/lit:lit: every lit test, with the pt2c-opt of this build (lit.site.cfg.py).
# lit's summary ("Passed: N", "Failed: N") stays in the test log for tools/test.sh.
set -euo pipefail
export PT2C_LIT_OUT="${TEST_TMPDIR:-$(mktemp -d)}/lit-out"
exec python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$(dirname "$0")"
