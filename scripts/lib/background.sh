# Background work for the scripts that build the Go parts beside the C++ build (test.sh, demo.sh).
# Each job runs in its own process group (set -m), so that a run that stops early stops it too:
# `trap stop_background EXIT` in the caller.
# shellcheck shell=bash
BACKGROUND=()
background() { # LOG CMD...: run CMD in the background, output to LOG; prints nothing
  local log="$1"; shift
  set -m
  ("$@") >"$log" 2>&1 &
  set +m
  BACKGROUND+=("$!")
  # shellcheck disable=SC2034 # read by the caller
  LAST_BACKGROUND=$!
}
# wait_background PID LOG WHAT: wait for it; on failure show the end of its log and stop.
wait_background() {
  local pid="$1" log="$2" what="$3"
  if ! wait "$pid"; then
    tail -n 60 "$log" >&2
    die "$what failed (the end of its log above; all of it in $log)"
  fi
}
stop_background() {
  local pid
  for pid in "${BACKGROUND[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
}
