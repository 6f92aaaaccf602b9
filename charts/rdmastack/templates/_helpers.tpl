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

{{/* registry/component:tag, the tag defaulting to appVersion. */}}
{{- define "rdmastack.image" -}}
{{- $root := index . 0 -}}
{{- $component := index . 1 -}}
{{- printf "%s/%s:%s" $root.Values.image.registry $component (default $root.Chart.AppVersion $root.Values.image.tag) -}}
{{- end -}}

{{/* The MutatingWebhookConfiguration of the pod webhook (cluster-scoped, so named per release). */}}
{{- define "rdmastack.webhookConfigurationName" -}}
{{ include "rdmastack.name" . }}-clientprofile-injector
{{- end -}}

{{/*
What the operator needs in a namespace that holds pools and profiles: granted cluster-wide, or with
tenancy.namespaces only in those namespaces (operator-rbac.yaml).
*/}}
{{- define "rdmastack.tenantRules" -}}
# What pools and profiles own: gateway and client DaemonSets and pods, the pool's Service and
# EndpointSlices, the clients' endpoints ConfigMap (the informers select them by label); and the
# pods of workloads that name a profile. Pods are deleted one at a time during an upgrade.
- apiGroups: [apps]
  resources: [daemonsets]
  verbs: [list, watch, create, patch, delete]
- apiGroups: [""]
  resources: [services, configmaps]
  verbs: [list, watch, create, patch, delete]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch, create, patch, delete]
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
