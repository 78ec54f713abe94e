-- The conversation event log (package conversation.eventlog). Runs unchanged on PostgreSQL and H2.
--
-- One row per conversation holds the last sequence number handed out. An append locks that row
-- (select ... for update) before numbering its events, so two replicas appending to one conversation
-- queue behind each other and the sequence stays gapless; rows are locked in conversation id order, so
-- two batches that touch the same conversations cannot deadlock.
create table conversation_sequence (
    conversation_id uuid   primary key,
    last_seq        bigint not null,
    foreign key (conversation_id) references conversation (id)
);

create table conversation_event (
    conversation_id uuid                     not null,
    seq             bigint                   not null,
    type            varchar(64)              not null,
    data            text                     not null,
    -- the worker's event id for events read from a worker stream (de-duplication); null for the control
    -- plane's own events (several nulls are allowed by the unique constraint on both databases)
    source_event_id varchar(200),
    created_at      timestamp with time zone not null,
    primary key (conversation_id, seq),
    unique (conversation_id, source_event_id)
);
