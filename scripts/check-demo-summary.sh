#!/usr/bin/env bash
# Checks the closing summary block of a scripts/demo.sh run (its output saved in LOG): every
# GatewayPool and ClientProfile Ready, every operator pod Ready, the leader hand-over done, the upgrade done with S3 traffic and 0 failed requests, the
# application pod's PUT+GET done, kubectl rdmastack bench's every checksum verified and nothing
# left behind, 0 requests of the operator refused, every pool Ready in the
# leader's /metrics. Each field is checked on its
# own, not only the demo's own verdict. Exit 0 when all hold; else one line per failed check.
#
#   scripts/check-demo-summary.sh LOG
set -euo pipefail
log="${1:?usage: scripts/check-demo-summary.sh LOG}"
[[ -f "$log" ]] || { echo "check-demo-summary: $log does not exist" >&2; exit 2; }
block="$(sed -n '/^--- demo summary ---$/,/^--- end demo summary ---$/p' "$log")"
[[ -n "$block" ]] || { echo "check-demo-summary: no summary block in $log (the demo stopped early; see its output)" >&2; exit 1; }
field() { sed -n "s/^$1=//p" <<<"$block" | tail -1; }
problems=()
check() { # NAME WHAT-IT-MUST-BE TEST...
  local name="$1" want="$2"; shift 2
  "$@" || problems+=("$name=$(field "$name") (want $want)")
}
all_of() { local v; v="$(field "$1")"; [[ $v =~ ^([0-9]+)/([0-9]+)$ ]] && ((BASH_REMATCH[2] > 0 && BASH_REMATCH[1] == BASH_REMATCH[2])); }
is() { [[ "$(field "$1")" == "$2" ]]; }
positive() { [[ "$(field "$1")" =~ ^[1-9][0-9]*$ ]]; }
check gatewaypools_ready "N/N, N > 0" all_of gatewaypools_ready
check clientprofiles_ready "N/N, N > 0" all_of clientprofiles_ready
check operator_pods_ready "N/N, N > 0" all_of operator_pods_ready
check leader_handover "done" is leader_handover "done"
check upgrade "done" is upgrade "done"
check upgrade_s3_requests "> 0" positive upgrade_s3_requests
check upgrade_s3_failed 0 is upgrade_s3_failed 0
check app_pod_put_get "done" is app_pod_put_get "done"
check bench_verified "done" is bench_verified "done"
check operator_requests_refused 0 is operator_requests_refused 0
check metrics_pools_ready "N/N, N > 0" all_of metrics_pools_ready
check result pass is result pass
if ((${#problems[@]})); then
  printf 'check-demo-summary: %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "check-demo-summary: every check holds ($(tr '\n' ' ' <<<"$(sed '1d;$d' <<<"$block")"))"
