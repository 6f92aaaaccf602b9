#!/usr/bin/env bash
# scripts/check-demo-summary.sh, which decides whether CI's demo run passed: a summary that holds
# passes; each field that does not hold fails on its own, naming the field, even when the demo's own
# verdict says pass; a run that stopped before its summary fails.
set -euo pipefail
checker="${1:?usage: check_demo_summary_test.sh SOURCE_DIR}/scripts/check-demo-summary.sh"
dir="$(mktemp -d)"; trap 'rm -rf "$dir"' EXIT
failures=0
good() {
  cat <<'BLOCK'
==> final status
some story output
--- demo summary ---
gatewaypools_ready=1/1
clientprofiles_ready=2/2
operator_pods_ready=2/2
leader_handover=done
upgrade=done
upgrade_s3_requests=118
upgrade_s3_failed=0
app_pod_put_get=done
bench_verified=done
operator_requests_refused=0
metrics_pools_ready=1/1
result=pass
--- end demo summary ---
done in 92s (pass).
BLOCK
}
expect() { # NAME WANT-RC WANT-TEXT SED-EXPR
  local name="$1" want_rc="$2" want_text="$3" expr="$4" rc=0 out
  good | sed "$expr" >"$dir/log"
  out="$(bash "$checker" "$dir/log" 2>&1)" || rc=$?
  if [[ $rc != "$want_rc" || $out != *"$want_text"* ]]; then
    echo "FAIL $name: exit $rc (want $want_rc), output: $out (want it to contain: $want_text)"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}
expect "a summary that holds" 0 "every check holds" ""
expect "a pool not Ready" 1 "gatewaypools_ready=0/1" "s|^gatewaypools_ready=.*|gatewaypools_ready=0/1|"
expect "no pool at all" 1 "gatewaypools_ready=0/0" "s|^gatewaypools_ready=.*|gatewaypools_ready=0/0|"
expect "a profile not Ready" 1 "clientprofiles_ready=1/2" "s|^clientprofiles_ready=.*|clientprofiles_ready=1/2|"
expect "an operator pod not Ready" 1 "operator_pods_ready=1/2" "s|^operator_pods_ready=.*|operator_pods_ready=1/2|"
expect "the standby did not take over" 1 "leader_handover=3 of 8 agents" "s|^leader_handover=.*|leader_handover=3 of 8 agents reconnected|"
expect "the upgrade did not finish" 1 "upgrade=not done within 300s" "s|^upgrade=.*|upgrade=not done within 300s|"
expect "no traffic during the upgrade" 1 "upgrade_s3_requests=0" "s|^upgrade_s3_requests=.*|upgrade_s3_requests=0|"
expect "a failed S3 request, though the demo said pass" 1 "upgrade_s3_failed=1" "s|^upgrade_s3_failed=.*|upgrade_s3_failed=1|"
expect "the application pod failed" 1 "app_pod_put_get=phase Failed" "s|^app_pod_put_get=.*|app_pod_put_get=phase Failed, no PUT+GET in its log|"
expect "the bench failed a checksum or left objects" 1 "bench_verified=fail" "s|^bench_verified=.*|bench_verified=fail|"
expect "a refused request" 1 "operator_requests_refused=2" "s|^operator_requests_refused=.*|operator_requests_refused=2|"
expect "a pool not Ready in the scrape" 1 "metrics_pools_ready=0/1" "s|^metrics_pools_ready=.*|metrics_pools_ready=0/1|"
expect "no pool in the scrape" 1 "metrics_pools_ready=0/0" "s|^metrics_pools_ready=.*|metrics_pools_ready=0/0|"
expect "the demo's own verdict" 1 "result=fail" "s|^result=.*|result=fail|"
expect "a field left out" 1 "app_pod_put_get= (want done)" "/^app_pod_put_get=/d"
expect "the demo stopped before its summary" 1 "no summary block" "/demo summary ---/,\$d"
((failures == 0)) || { echo "$failures case(s) failed"; exit 1; }
