{{/* Names and labels shared by the templates. */}}

{{- define "rdmastack.name" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "rdmastack.operatorName" -}}
{{- include "rdmastack.name" . }}-operator
{{- end -}}

{{- define "rdmastack.labels" -}}
app.kubernetes.io/part-of: rdmastack
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "rdmastack.operatorSelector" -}}
app.kubernetes.io/name: rdmastack-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
registry/component@sha256:... when image.digests has the component's digest (the schema allows
only sha256:<64 hex>), else registry/component:tag, the tag defaulting to appVersion.
*/}}
{{- define "rdmastack.image" -}}
{{- $root := index . 0 -}}
{{- $component := index . 1 -}}
{{- $digest := index (default dict $root.Values.image.digests) $component | default "" -}}
{{- if $digest -}}
{{- printf "%s/%s@%s" $root.Values.image.registry $component $digest -}}
{{- else -}}
{{- printf "%s/%s:%s" $root.Values.image.registry $component (default $root.Chart.AppVersion $root.Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The MutatingWebhookConfiguration of the pod webhook (cluster-scoped, so named per release). */}}
{{- define "rdmastack.webhookConfigurationName" -}}
{{ include "rdmastack.name" . }}-clientprofile-injector
{{- end -}}

{{/*
The namespaces the operator serves, one per line: tenancy.namespaces, or the release namespace
when that is empty; nothing with tenancy.clusterWide (every namespace). The Deployment passes each
as --tenant-namespace and operator-rbac.yaml grants the tenant rules in each, so the operator
serves exactly what it is granted.
*/}}
{{- define "rdmastack.servedNamespaces" -}}
{{- if not .Values.tenancy.clusterWide -}}
{{- $ns := .Values.tenancy.namespaces | default (list .Release.Namespace) -}}
{{- range $ns }}
{{ . }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Refuses tenancy settings that contradict each other, naming the values to change. */}}
{{- define "rdmastack.checkTenancy" -}}
{{- $t := .Values.tenancy -}}
{{- if and $t.clusterWide $t.namespaces -}}
{{- fail (printf "tenancy.clusterWide=true serves every namespace, but tenancy.namespaces also lists %s: set one of them (tenancy.namespaces={} for cluster-wide, or tenancy.clusterWide=false to serve only the listed namespaces)." (join ", " $t.namespaces)) -}}
{{- end -}}
{{- if gt (int $t.hostPorts.min) (int $t.hostPorts.max) -}}
{{- fail (printf "tenancy.hostPorts.min (%v) is above tenancy.hostPorts.max (%v): no pool could bind any port. Set min <= max." $t.hostPorts.min $t.hostPorts.max) -}}
{{- end -}}
{{- end -}}

{{/*
What the operator needs in a namespace that holds pools and profiles: a Role in each served
namespace, or with tenancy.clusterWide in the ClusterRole (operator-rbac.yaml).
*/}}
{{- define "rdmastack.tenantRules" -}}
# What pools and profiles own: gateway and client DaemonSets and pods, the pool's Service and
# EndpointSlices, the clients' endpoints ConfigMap (the informers select them by label); and the
# pods of workloads that name a profile. Pods are deleted one at a time during an upgrade. `get`:
# before the first apply of each, an object of that name without our labels is read, so that it
# is refused rather than merged into (object_writer.h).
- apiGroups: [apps]
  resources: [daemonsets]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [""]
  resources: [services, configmaps]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [""]
  resources: [pods]
  verbs: [list, watch, delete]
# The S3 key Secrets pools and profiles name: the informer keeps only their key names; the
# upgrade's validation reads a pool's keys once per node to sign its read-only check.
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch]
# A ClientProfile's S3 user keys (spec.s3User) go into <profile>-s3-user in its namespace, made
# and rotated by the operator; the garbage collector deletes it with the profile (owner
# reference), so no delete.
- apiGroups: [""]
  resources: [secrets]
  verbs: [create, update]
{{- end }}

{{/* The `job` label of the operator's scrape target: the metrics Service's name unless set. */}}
{{- define "rdmastack.metricsJob" -}}
{{- default (printf "%s-metrics" (include "rdmastack.operatorName" .)) .Values.metrics.prometheusRule.job -}}
{{- end -}}

{{/* The chart's scraper identity, made when a monitor is on and no token Secret is named. */}}
{{- define "rdmastack.metricsScraperName" -}}
{{- include "rdmastack.name" . }}-metrics-scraper
{{- end -}}

{{/* The Secret (name) whose key holds the scraper's bearer token. */}}
{{- define "rdmastack.metricsTokenSecret" -}}
{{- default (printf "%s-token" (include "rdmastack.metricsScraperName" .)) .Values.metrics.scrape.tokenSecret.name -}}
{{- end -}}

{{/*
The scrape endpoint settings both monitors share: HTTPS, the operator's own namespace label kept
off the pool and profile series (honorLabels), TLS and the bearer token.
*/}}
{{- define "rdmastack.metricsEndpoint" -}}
{{- $s := .Values.metrics.scrape -}}
scheme: https
path: /metrics
interval: {{ $s.interval }}
scrapeTimeout: {{ $s.scrapeTimeout }}
# Pool and profile series carry the object's own `namespace` label (as kube-state-metrics does).
honorLabels: true
tlsConfig:
  insecureSkipVerify: {{ $s.tls.insecureSkipVerify }}
  {{- with $s.tls.ca }}
  ca:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $s.tls.serverName }}
  serverName: {{ . | quote }}
  {{- end }}
authorization:
  type: Bearer
  credentials:
    name: {{ include "rdmastack.metricsTokenSecret" . }}
    key: {{ $s.tokenSecret.key }}
{{- end -}}

{{/* Seconds of a one-unit duration ("30s", "2m", "1h"); empty for any other form. */}}
{{- define "rdmastack.durationSeconds" -}}
{{- $d := toString . -}}
{{- if regexMatch "^[0-9]+s$" $d -}}{{ trimSuffix "s" $d | atoi }}
{{- else if regexMatch "^[0-9]+m$" $d -}}{{ mul (trimSuffix "m" $d | atoi) 60 }}
{{- else if regexMatch "^[0-9]+h$" $d -}}{{ mul (trimSuffix "h" $d | atoi) 3600 }}
{{- end -}}
{{- end -}}

{{/* Refuses monitor settings that cannot work, naming the values to change. */}}
{{- define "rdmastack.checkMonitors" -}}
{{- $m := .Values.metrics -}}
{{- if and $m.serviceMonitor.enabled $m.podMonitor.enabled -}}
{{- fail "metrics.serviceMonitor.enabled and metrics.podMonitor.enabled are both true: each would scrape every operator replica, so every series would be stored twice. Turn one off." -}}
{{- end -}}
{{- if and (or $m.serviceMonitor.enabled $m.podMonitor.enabled) (not $m.enabled) -}}
{{- fail "metrics.serviceMonitor/podMonitor need metrics.enabled=true: with it false the operator serves no /metrics." -}}
{{- end -}}
{{- $interval := include "rdmastack.durationSeconds" $m.scrape.interval -}}
{{- $timeout := include "rdmastack.durationSeconds" $m.scrape.scrapeTimeout -}}
{{- if and (or $m.serviceMonitor.enabled $m.podMonitor.enabled) $interval $timeout (gt (atoi $timeout) (atoi $interval)) -}}
{{- fail (printf "metrics.scrape.scrapeTimeout (%s) is longer than metrics.scrape.interval (%s): Prometheus Operator refuses such a monitor (only an InvalidConfiguration Warning event says so) and nothing is scraped. Set scrapeTimeout to at most the interval." $m.scrape.scrapeTimeout $m.scrape.interval) -}}
{{- end -}}
{{- if and $m.scrape.tls.ca $m.scrape.tls.insecureSkipVerify -}}
{{- fail "metrics.scrape.tls.ca names a CA but metrics.scrape.tls.insecureSkipVerify is true, so the CA would never be used: set metrics.scrape.tls.insecureSkipVerify=false." -}}
{{- end -}}
{{- end -}}
