{{/*
Tracing settings as environment variables (they outrank application.yaml and the config value):
the sampling share always, the OTLP endpoint only when set, so nothing is exported by default.
*/}}
{{- define "talkide.tracingEnv" -}}
- name: MANAGEMENT_TRACING_SAMPLING_PROBABILITY
  value: {{ .Values.tracing.samplingProbability | quote }}
{{- with .Values.tracing.otlpEndpoint }}
- name: MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- end }}
