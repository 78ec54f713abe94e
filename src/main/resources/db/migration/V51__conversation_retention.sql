-- Conversation retention per tenant-environment (package conversation.retention). Runs unchanged on
-- PostgreSQL and H2. No row: conversations are kept. No foreign key, so removing a tenant-environment is
-- not held up by its setting.
create table conversation_retention (
    tenant     varchar(63)              not null,
    env        varchar(63)              not null,
    -- conversations with no event for this many days are deleted with everything they hold
    keep_days  integer                  not null,
    updated_at timestamp with time zone not null,
    primary key (tenant, env)
);
