-- The worker pod's placement, sandbox, local disk and probe timeout per tenant-environment (JSON, unset
-- fields follow the configured defaults). A column of its own rather than more keys in `spec`: the previous
-- release reads `spec` refusing unknown keys, and keeps working while both run during a rolling update.
-- Nullable, so expand-only. Runs unchanged on PostgreSQL and on H2 (MODE=PostgreSQL).

alter table tenant_environment_desired_state add column worker_pod varchar(16000);
