-- Identity tokens are stored only as SHA-256 hashes: a database leak yields nothing to present.
create table worker_identity_token (
    id         uuid                     primary key,
    tenant     varchar(63)              not null,
    env        varchar(63)              not null,
    token_hash varchar(64)              not null unique,
    created_at timestamp with time zone not null,
    expires_at timestamp with time zone not null,
    revoked_at timestamp with time zone,
    foreign key (tenant, env) references tenant_environment (tenant, env)
);

create index worker_identity_token_scope on worker_identity_token (tenant, env, created_at);
