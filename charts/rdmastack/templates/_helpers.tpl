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
