# The ASan+UBSan and TSan unit tests of scripts/test.sh run in its background job, at the lowest
# priority, while the cluster tests hold the foreground: on a warm machine they then take only the
# CPU the clusters leave, instead of about 160 s of their own after them (docs/development.md,
# "CI"). Under that load a test's own deadline can pass for want of CPU, so the foreground settles
# the outcome: a sanitizer's report fails the run at once and is never retried; a test that failed
# without one runs again alone, and must pass then. Both runs' output stays in the log.
# shellcheck shell=bash

# exact_regex NAME...: a ctest -R that selects exactly these tests (each name whole, escaped).
exact_regex() {
  printf '^(%s)$' "$(printf '%s\n' "$@" | sed 's/[][\.*^$+?(){}|]/\\&/g' | paste -sd'|')"
}

# A sanitizer's report in ctest's output (the failed tests' output is shown in full).
SANITIZER_REPORT='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|WARNING: ThreadSanitizer'

# run_sanitizer_tests LOG CTEST_ARG...: runs ctest with those arguments, output to LOG and its exit
# status to LOG.rc; never fails itself (the foreground judges the outcome).
run_sanitizer_tests() {
  local log="$1" rc=0
  shift
  ctest "$@" >"$log" 2>&1 || rc=$?
  echo "$rc" >"$log.rc"
}

# failed_test_names LOG: the names ctest lists under "The following tests FAILED:".
failed_test_names() {
  sed -n '/^The following tests FAILED:/,$ s/^[[:space:]]*[0-9][0-9]* - \(.*\) (.*)$/\1/p' "$1"
}

# settle_sanitizer_tests WHAT LOG CTEST_ARG...: shows how LOG's run ended; dies when it did not
# run, when a sanitizer reported, or when a test that failed without a report fails again alone
# (run with the same CTEST_ARGs, narrowed to those tests).
settle_sanitizer_tests() {
  local what="$1" log="$2"
  shift 2
  [[ -f "$log.rc" ]] || die "$what: the background job never ran its tests (no $log.rc)"
  grep -E 'tests passed|Total Test time' "$log" || true
  local rc
  rc="$(cat "$log.rc")"
  ((rc == 0)) && return 0
  if grep -qE "$SANITIZER_REPORT" "$log"; then
    cat "$log" >&2
    die "$what: a sanitizer reported an error (above; also in $log)"
  fi
  local failed=()
  mapfile -t failed < <(failed_test_names "$log")
  ((${#failed[@]})) || { cat "$log" >&2; die "$what: ctest failed (exit $rc) and named no failed test (above)"; }
  cat "$log"
  echo "$what: ${#failed[@]} test(s) failed in the background under the cluster tests' load, without a sanitizer report; running them again alone: ${failed[*]}"
  ctest "$@" --output-on-failure -R "$(exact_regex "${failed[@]}")" ||
    die "$what: ${failed[*]} failed again when run alone"
}
