-- Budgets (package budget). Runs unchanged on PostgreSQL and on H2 (MODE=PostgreSQL).
--
-- One row per user holds everything a reservation must check, so that the check and the reservation
-- are a single UPDATE of a single row: the database's row lock makes concurrent calls queue, and each
-- re-evaluates the limit after the previous one committed. Limits left null follow the configured
-- defaults (talkide.budget.*), so changing a default changes it for everyone without an override.
create table user_budget (
    user_id             varchar(255)             primary key,
    limit_micros        bigint,
    enforcement         varchar(8),
    max_concurrent      integer,
    requests_per_minute integer,
    tokens_per_hour     bigint,
    -- The current period: spend of earlier periods lives on in usage_record.
    period_start        timestamp with time zone not null,
    spent_micros        bigint                   not null,
    reserved_micros     bigint                   not null,
    in_flight           integer                  not null,
    -- Fixed fair-use windows, shared by every replica.
    minute_start        timestamp with time zone not null,
    minute_requests     integer                  not null,
    hour_start          timestamp with time zone not null,
    hour_tokens         bigint                   not null,
    updated_at          timestamp with time zone not null
);

-- A call in flight. Its amount is also counted in user_budget.reserved_micros; whoever deletes the row
-- (the settling call, or the expiry of a call whose replica died) gives that amount back.
create table budget_reservation (
    id            uuid                     primary key,
    user_id       varchar(255)             not null references user_budget (user_id),
    amount_micros bigint                   not null,
    created_at    timestamp with time zone not null,
    expires_at    timestamp with time zone not null
);

create index budget_reservation_expiry on budget_reservation (expires_at);

-- One row per gateway call, whatever its outcome.
create table usage_record (
    id                    uuid                     primary key,
    request_id            varchar(64)              not null,
    tenant                varchar(63)              not null,
    env                   varchar(63)              not null,
    conversation_id       uuid                     not null,
    user_id               varchar(255)             not null,
    endpoint              varchar(32)              not null,
    model                 varchar(128)             not null,
    model_family          varchar(64)              not null,
    input_tokens          bigint                   not null,
    cache_write_5m_tokens bigint                   not null,
    cache_write_1h_tokens bigint                   not null,
    cache_read_tokens     bigint                   not null,
    output_tokens         bigint                   not null,
    cost_micros           bigint                   not null,
    overrun_micros        bigint                   not null,
    outcome               varchar(32)              not null,
    upstream_status       integer,
    started_at            timestamp with time zone not null,
    duration_micros       bigint                   not null,
    first_byte_micros     bigint
);

create index usage_record_user on usage_record (user_id, started_at);
create index usage_record_tenant on usage_record (tenant, env, started_at);
create index usage_record_started on usage_record (started_at);
