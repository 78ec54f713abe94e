-- The Kubernetes namespace of each tenant-environment ({tenant}-{env}), unique: a-b/c and a/b-c would
-- share one. Runs unchanged on PostgreSQL and H2 (MODE=PostgreSQL). Expand-only: the column is nullable,
-- so the previous release's inserts (which do not set it) keep working during a rolling update; this
-- release sets it on every insert and also refuses a name whose tenant || '-' || env is taken.
alter table tenant_environment add column namespace varchar(63);

-- Where two existing tenant-environments already share a namespace, only the older one gets it; the other
-- keeps null (the unique index could not be built otherwise) and should be deleted by an operator.
update tenant_environment t set namespace = t.tenant || '-' || t.env
where not exists (
    select 1 from tenant_environment o
    where o.tenant || '-' || o.env = t.tenant || '-' || t.env
      and (o.created_at < t.created_at or (o.created_at = t.created_at and o.tenant < t.tenant)));

create unique index tenant_environment_namespace on tenant_environment (namespace);
