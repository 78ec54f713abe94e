-- Provisioning: why a tenant-environment is in its status (e.g. degraded: "namespace exists and is not
-- ours"), and each tenant-environment's desired state with the reconcile bookkeeping.
-- Runs unchanged on PostgreSQL and on H2 (MODE=PostgreSQL).

alter table tenant_environment add column status_reason varchar(1000);

create table tenant_environment_desired_state (
    tenant             varchar(63)              not null,
    env                varchar(63)              not null,
    -- The desired state as the admin API set it (JSON); unset fields take the configured defaults.
    spec               varchar(8000)            not null,
    -- Raised by every change of spec; a pass that applies it records it as applied. Writes made while
    -- both are equal repair drift and are counted as such.
    generation         bigint                   not null,
    applied_generation bigint                   not null,
    last_reconciled_at timestamp with time zone,
    drift_repairs      bigint                   not null,
    updated_at         timestamp with time zone not null,
    primary key (tenant, env),
    foreign key (tenant, env) references tenant_environment (tenant, env)
);
