{{- define "talkide.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "talkide.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "talkide.selectorLabels" -}}
app.kubernetes.io/name: {{ include "talkide.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "talkide.labels" -}}
{{ include "talkide.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: control-plane
app.kubernetes.io/part-of: talkide
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The Secret holding credentials given as values, when no existing Secret is named. */}}
{{- define "talkide.valuesSecretName" -}}
{{- printf "%s-credentials" (include "talkide.fullname" .) -}}
{{- end -}}

{{- define "talkide.databaseSecret" -}}
{{- default (include "talkide.valuesSecretName" .) .Values.database.existingSecret -}}
{{- end -}}

{{- define "talkide.anthropicSecret" -}}
{{- default (include "talkide.valuesSecretName" .) .Values.anthropic.existingSecret -}}
{{- end -}}

{{- define "talkide.masterKeysSecret" -}}
{{- default (include "talkide.valuesSecretName" .) .Values.masterKeys.existingSecret -}}
{{- end -}}

{{- define "talkide.needsValuesSecret" -}}
{{- if or (not .Values.database.existingSecret) (not .Values.anthropic.existingSecret) (not .Values.masterKeys.existingSecret) -}}true{{- end -}}
{{- end -}}

{{/* The chart's own Spring settings; configmap.yaml merges `config:` over them. */}}
{{- define "talkide.applicationConfig" -}}
talkide:
  auth:
    jwt:
      roles-claim: {{ .Values.oidc.rolesClaim | quote }}
      principal-claim: {{ .Values.oidc.principalClaim | quote }}
  gateway:
    upstream-url: {{ .Values.anthropic.baseUrl | quote }}
  provisioning:
    enabled: {{ .Values.provisioning.enabled }}
    # Workers accept connections only from these pods in this namespace (their NetworkPolicy).
    control-plane-namespace: {{ .Release.Namespace | quote }}
    control-plane-pod-labels:
      {{- range $key, $value := (include "talkide.selectorLabels" . | fromYaml) }}
      "[{{ $key }}]": {{ $value | quote }}
      {{- end }}
    # Its rights inside each tenant namespace: a RoleBinding to the chart's tenant ClusterRole (rbac.yaml).
    tenant-access:
      cluster-role: {{ include "talkide.tenantClusterRole" . | quote }}
      service-account: {{ include "talkide.fullname" . | quote }}
    # Where workers reach the control plane: its Service inside the cluster.
    gateway-base-url: {{ printf "http://%s.%s.svc.cluster.local:%v" (include "talkide.fullname" .) .Release.Namespace .Values.service.port | quote }}
    control-plane-url: {{ printf "http://%s.%s.svc.cluster.local:%v" (include "talkide.fullname" .) .Release.Namespace .Values.service.port | quote }}
    defaults:
      worker-image: {{ include "talkide.workerImage" . | quote }}
      storage-size: {{ .Values.provisioning.storageSize | quote }}
      {{- with .Values.provisioning.storageClass }}
      storage-class: {{ . | quote }}
      {{- end }}
      {{- with .Values.provisioning.workerPod }}
      # Affinity and tolerations as JSON: relaxed binding would split the dotted label keys inside them.
      pod:
        {{- with .imagePullSecrets }}
        image-pull-secrets: {{ toJson . }}
        {{- end }}
        {{- with .nodeSelector }}
        node-selector:
          {{- range $key, $value := . }}
          "[{{ $key }}]": {{ $value | quote }}
          {{- end }}
        {{- end }}
        {{- with .tolerations }}
        tolerations:
          {{- range . }}
          - {{ toJson . | quote }}
          {{- end }}
        {{- end }}
        {{- with .affinity }}
        affinity: {{ toJson . | quote }}
        {{- end }}
        {{- with .priorityClassName }}
        priority-class-name: {{ . | quote }}
        {{- end }}
        {{- with .runtimeClassName }}
        runtime-class-name: {{ . | quote }}
        {{- end }}
        ephemeral-storage-request: {{ .ephemeralStorageRequest | quote }}
        ephemeral-storage-limit: {{ .ephemeralStorageLimit | quote }}
        tmp-size-limit: {{ .tmpSizeLimit | quote }}
        probe-timeout-seconds: {{ .probeTimeoutSeconds }}
      {{- end }}
  builds:
    enabled: {{ .Values.builds.enabled }}
    {{- if or .Values.builds.nodeSelector .Values.builds.tolerations }}
    placement:
      {{- with .Values.builds.nodeSelector }}
      node-selector:
        {{- range $key, $value := . }}
        "[{{ $key }}]": {{ $value | quote }}
        {{- end }}
      {{- end }}
      {{- with .Values.builds.tolerations }}
      tolerations: {{ toJson . }}
      {{- end }}
    {{- end }}
{{- end -}}

{{/* The ClusterRole the control plane binds to itself inside each tenant namespace. */}}
{{- define "talkide.tenantClusterRole" -}}
{{- printf "%s-tenant" (include "talkide.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The worker image: the one built with this release (same tag as the control plane) unless set whole. */}}
{{- define "talkide.workerImage" -}}
{{- .Values.provisioning.workerImage | default (printf "%s:%s" .Values.provisioning.workerRepository (.Values.image.tag | default .Chart.AppVersion)) -}}
{{- end -}}

{{/*
Whether the cluster serves ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1, Kubernetes 1.30+).
Against a cluster Helm knows every served kind; rendered without one (helm template) it knows only
group/versions, and the chart renders the policy as for a current Kubernetes.
*/}}
{{- define "talkide.admissionPolicyServed" -}}
{{- $live := .Capabilities.APIVersions.Has "v1/Namespace" -}}
{{- if or (not $live) (.Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy") -}}
true
{{- end -}}
{{- end }}

{{/*
Whether the cluster has the preStop sleep action (Kubernetes 1.29+). Rendered without a cluster, as for a
current Kubernetes (Helm's offline default version is older than any supported cluster).
*/}}
{{- define "talkide.sleepActionServed" -}}
{{- $live := .Capabilities.APIVersions.Has "v1/Namespace" -}}
{{- if or (not $live) (semverCompare ">=1.29-0" .Capabilities.KubeVersion.Version) -}}
true
{{- end -}}
{{- end }}
