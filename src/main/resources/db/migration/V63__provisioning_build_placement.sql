-- Where a tenant-environment's build pods run (JSON: nodeSelector, requiredNodeLabels, tolerations; unset
-- fields follow talkide.builds.placement.*). A column of its own, like worker_pod (V59): the previous release
-- reads `spec` refusing unknown keys. Nullable, so expand-only. Runs unchanged on PostgreSQL and H2.

alter table tenant_environment_desired_state add column build_placement varchar(16000);
