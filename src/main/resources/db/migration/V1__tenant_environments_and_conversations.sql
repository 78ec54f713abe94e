-- Runs unchanged on PostgreSQL and on H2 (MODE=PostgreSQL). Keep to the common subset:
-- no PostgreSQL-only types or functions, no H2-only syntax.

create table tenant_environment (
    tenant     varchar(63)              not null,
    env        varchar(63)              not null,
    status     varchar(32)              not null,
    created_at timestamp with time zone not null,
    updated_at timestamp with time zone not null,
    primary key (tenant, env)
);

create table conversation (
    id            uuid                     primary key,
    tenant        varchar(63)              not null,
    env           varchar(63)              not null,
    owner_user_id varchar(255)             not null,
    title         varchar(200)             not null,
    created_at    timestamp with time zone not null,
    foreign key (tenant, env) references tenant_environment (tenant, env)
);

create index conversation_owner on conversation (owner_user_id, tenant, env, created_at);
