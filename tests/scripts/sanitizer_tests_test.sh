#!/usr/bin/env bash
# scripts/lib/sanitizer_tests.sh, which decides whether the sanitizer unit tests that ran in
# test.sh's background job passed: a clean run passes; a sanitizer's report fails at once and is
# not run again; a test that failed without one runs again alone (only that test) and decides; a
# run that never ended, or failed naming no test, fails. `ctest` is a shell function here that
# records its arguments and answers as each case says.
set -euo pipefail
# shellcheck source=../../scripts/lib/sanitizer_tests.sh
source "${1:?usage: sanitizer_tests_test.sh SOURCE_DIR}/scripts/lib/sanitizer_tests.sh"
dir="$(mktemp -d)"; trap 'rm -rf "$dir"' EXIT
die() { echo "error: $*" >&2; exit 1; }
RERUN_RC=0
ctest() { echo "$*" >>"$dir/ctest-calls"; return "$RERUN_RC"; }
failures=0

failed_run() { # the tail of a ctest run in which two tests failed
  cat <<'BLOCK'
99% tests passed, 2 tests failed out of 1489

Total Test time (real) = 140.12 sec

The following tests FAILED:
	 17 - AgentHubTest.PortCounters (Failed)
	412 - RuntimeTest.Requeue[1] (Timeout)
Errors while running CTest
BLOCK
}
# expect NAME WANT-RC WANT-TEXT WANT-CALLS: runs settle_sanitizer_tests on $dir/log; WANT-CALLS is
# what the ctest function was called with ("" when it must not be called).
expect() {
  local name="$1" want_rc="$2" want_text="$3" want_calls="$4" rc=0 out calls=""
  rm -f "$dir/ctest-calls"
  out="$( (settle_sanitizer_tests "ASan" "$dir/log" --preset asan-unit -j 2) 2>&1)" || rc=$?
  [[ -f "$dir/ctest-calls" ]] && calls="$(cat "$dir/ctest-calls")"
  if [[ $rc != "$want_rc" || $out != *"$want_text"* || $calls != "$want_calls" ]]; then
    echo "FAIL $name: exit $rc (want $want_rc), ctest called with '$calls' (want '$want_calls'), output: $out (want it to contain: $want_text)"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

rerun='--preset asan-unit -j 2 --output-on-failure -R ^(AgentHubTest\.PortCounters|RuntimeTest\.Requeue\[1\])$'

echo "100% tests passed, 0 tests failed out of 1489" >"$dir/log"; echo 0 >"$dir/log.rc"
expect "a clean run passes" 0 "100% tests passed" ""

rm -f "$dir/log.rc"
expect "a run that never ended fails" 1 "never ran its tests" ""

{ echo "==1234==ERROR: AddressSanitizer: heap-use-after-free"; failed_run; } >"$dir/log"
echo 8 >"$dir/log.rc"
expect "an ASan report fails and is not run again" 1 "a sanitizer reported" ""

{ echo "x.cc:12:3: runtime error: signed integer overflow"; failed_run; } >"$dir/log"
expect "a UBSan report fails" 1 "a sanitizer reported" ""

{ echo "WARNING: ThreadSanitizer: data race (pid=7)"; failed_run; } >"$dir/log"
expect "a TSan report fails" 1 "a sanitizer reported" ""

failed_run >"$dir/log"
RERUN_RC=0
expect "failures without a report run again alone, and pass" 0 "running them again alone" "$rerun"

RERUN_RC=8
expect "failures without a report that fail again alone fail" 1 "failed again when run alone" "$rerun"

echo "Errors while running CTest" >"$dir/log"
expect "a failed run that names no test fails" 1 "named no failed test" ""

((failures == 0)) || { echo "$failures case(s) failed"; exit 1; }
echo "all cases passed"
