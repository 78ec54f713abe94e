-- Which users may use which tenant-environments. Checked on every browser call that reads or writes a
-- conversation, so it is looked up by its primary key; by user for "my tenant-environments".
-- Runs unchanged on PostgreSQL and on H2 (MODE=PostgreSQL).
create table tenant_environment_member (
    tenant     varchar(63)              not null,
    env        varchar(63)              not null,
    user_id    varchar(255)             not null,
    granted_at timestamp with time zone not null,
    primary key (tenant, env, user_id),
    foreign key (tenant, env) references tenant_environment (tenant, env)
);

create index tenant_environment_member_by_user on tenant_environment_member (user_id);
