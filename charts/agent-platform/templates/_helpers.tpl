{{/* Chart name. */}}
{{- define "agent-platform.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-scoped name; component names append "-gateway", "-api", ... so keep room for them. */}}
{{- define "agent-platform.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "agent-platform.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Common labels. Call with (dict "ctx" $ "component" "api"). */}}
{{- define "agent-platform.labels" -}}
helm.sh/chart: {{ include "agent-platform.chart" .ctx }}
{{ include "agent-platform.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
{{- end -}}

{{/* Selector labels. Call with (dict "ctx" $ "component" "api"). */}}
{{- define "agent-platform.selectorLabels" -}}
app.kubernetes.io/name: {{ include "agent-platform.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "agent-platform.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The Secret the roles read: the chart's own, or one the operator manages. */}}
{{- define "agent-platform.secretName" -}}
{{- default (include "agent-platform.fullname" .) .Values.existingSecret -}}
{{- end -}}

{{/* "true" when the chart runs its own Neo4j: config.GRAPH_STORE is "neo4j" and neo4j.install is on. */}}
{{- define "agent-platform.installNeo4j" -}}
{{- if and (eq (toString .Values.config.GRAPH_STORE) "neo4j") .Values.neo4j.install -}}true{{- end -}}
{{- end -}}

{{/* ConfigMap data: non-empty `config` values, as strings; NEO4J_URL defaults to the chart's own Neo4j. */}}
{{- define "agent-platform.configData" -}}
{{- range $key, $value := .Values.config }}
{{- if ne (toString $value) "" }}
{{ $key }}: {{ toString $value | quote }}
{{- end }}
{{- end }}
{{- if and (include "agent-platform.installNeo4j" .) (eq (toString .Values.config.NEO4J_URL) "") }}
NEO4J_URL: {{ printf "bolt://%s-neo4j:7687" (include "agent-platform.fullname" .) | quote }}
{{- end }}
{{- end -}}

{{/* Secret data: non-empty `secrets` values, base64-encoded. Fails when a required secret is missing. */}}
{{- define "agent-platform.secretData" -}}
{{- $_ := required "secrets.JWT_SECRET is required (32+ characters, shared by every role)" .Values.secrets.JWT_SECRET -}}
{{- $_ := required "secrets.INTERNAL_SECRET is required (32+ characters, shared by every role)" .Values.secrets.INTERNAL_SECRET -}}
{{- $_ := required "secrets.WEBHOOK_SIGNING_SECRET is required (16+ characters)" .Values.secrets.WEBHOOK_SIGNING_SECRET -}}
{{- $_ := required "secrets.DATABASE_URL is required (postgres://...)" .Values.secrets.DATABASE_URL -}}
{{- $_ := required "secrets.RABBITMQ_URL is required (amqp://...)" .Values.secrets.RABBITMQ_URL -}}
{{- $_ := required "secrets.REDIS_URL is required (redis://...)" .Values.secrets.REDIS_URL -}}
{{- if eq (toString .Values.config.GRAPH_STORE) "neo4j" }}
{{- $_ := required "secrets.NEO4J_PASSWORD is required with config.GRAPH_STORE=neo4j" .Values.secrets.NEO4J_PASSWORD -}}
{{- end }}
{{- range $key, $value := .Values.secrets }}
{{- if ne (toString $value) "" }}
{{ $key }}: {{ toString $value | b64enc | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Environment shared by every role: the ConfigMap and the Secret. Takes the name suffix ("" or "-migrate"). */}}
{{- define "agent-platform.envFrom" -}}
envFrom:
  - configMapRef:
      name: {{ include "agent-platform.fullname" .ctx }}{{ .suffix }}
  - secretRef:
      name: {{ if .ctx.Values.existingSecret }}{{ .ctx.Values.existingSecret }}{{ else }}{{ include "agent-platform.fullname" .ctx }}{{ .suffix }}{{ end }}
{{- end -}}

{{/* Pod-level settings shared by every role. */}}
{{- define "agent-platform.podSpecCommon" -}}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Checksums that roll the pods when configuration changes. */}}
{{- define "agent-platform.configChecksums" -}}
checksum/config: {{ include "agent-platform.configData" . | sha256sum }}
{{- if not .Values.existingSecret }}
checksum/secret: {{ include "agent-platform.secretData" . | sha256sum }}
{{- end }}
{{- end -}}
