-- Reconcile requests (package provisioning.schedule). Runs unchanged on PostgreSQL and on H2.
--
-- A desired-state change served by a replica that does not lead is recorded here; the leader polls
-- the table every few seconds and reconciles what it finds, so a change never waits for the next full
-- resync. One row per tenant-environment: repeated changes before the leader looks collapse into one.
create table provisioning_reconcile_request (
    tenant       varchar(63)              not null,
    env          varchar(63)              not null,
    requested_at timestamp with time zone not null,
    primary key (tenant, env)
);
