{{/* Chart name, overridable. */}}
{{- define "hyphae.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: <release>-<chart> unless the release name already contains the chart name. */}}
{{- define "hyphae.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of the operator's resources (Deployment, Service, Roles). */}}
{{- define "hyphae.operatorName" -}}
{{- printf "%s-operator" (include "hyphae.fullname" .) }}
{{- end }}

{{- define "hyphae.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Recommended labels on everything the chart renders. */}}
{{- define "hyphae.labels" -}}
helm.sh/chart: {{ include "hyphae.chart" . }}
app.kubernetes.io/name: {{ include "hyphae.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: hyphae
{{- end }}

{{/* Selector labels of the operator pods. */}}
{{- define "hyphae.operatorSelectorLabels" -}}
app.kubernetes.io/name: {{ include "hyphae.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{- define "hyphae.operatorLabels" -}}
{{ include "hyphae.labels" . }}
app.kubernetes.io/component: operator
{{- end }}

{{- define "hyphae.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "hyphae.operatorName" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The image's tag, with "@<digest>" when one pins it: the HyphaeMesh's image.tag, so the operator's "repository:tag" is pinned too. */}}
{{- define "hyphae.imageTag" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $tag .Values.image.digest }}
{{- else }}
{{- $tag }}
{{- end }}
{{- end }}

{{- define "hyphae.image" -}}
{{- printf "%s:%s" .Values.image.repository (include "hyphae.imageTag" .) }}
{{- end }}

{{/* The HyphaeMesh's name. */}}
{{- define "hyphae.meshName" -}}
{{- default .Release.Name .Values.mesh.name | trunc 40 | trimSuffix "-" }}
{{- end }}

{{/* Secret holding the bootstrap admin key of the mesh. */}}
{{- define "hyphae.adminKeySecret" -}}
{{- if .Values.mesh.adminKey.create }}
{{- printf "%s-admin-key" (include "hyphae.meshName" .) }}
{{- else }}
{{- .Values.mesh.adminKey.existingSecret }}
{{- end }}
{{- end }}

{{/* Restricted Pod Security Standard, pod level. */}}
{{- define "hyphae.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* Restricted Pod Security Standard, container level. */}}
{{- define "hyphae.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end }}
