-- The cut-over gate per tenant-environment (package gate, docs/builds.md "Cut-over gate"). Runs unchanged
-- on PostgreSQL and H2. One row per verification run; the newest decides. An operator override is a row
-- of its own, so who allowed what and when stays on record.
create table cutover_verification (
    id          uuid                     primary key,
    tenant      varchar(63)              not null,
    env         varchar(63)              not null,
    -- RUNNING, PASSED, FAILED, OVERRIDDEN
    outcome     varchar(16)              not null,
    -- on_demand | worker_changed | operator_override
    cause       varchar(32)              not null,
    -- what failed (or the operator's reason for an override)
    detail      varchar(2000),
    -- who asked (an operator, or the control plane itself)
    requested_by varchar(200),
    started_at  timestamp with time zone not null,
    finished_at timestamp with time zone
);
create index cutover_verification_latest on cutover_verification (tenant, env, started_at);
