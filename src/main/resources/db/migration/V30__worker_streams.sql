-- Which replica consumes each conversation's worker stream, until when, and from where it resumes.
-- Runs unchanged on PostgreSQL and on H2 (MODE=PostgreSQL).
create table worker_stream (
    conversation_id  uuid                     primary key,
    -- someone should be consuming this stream (a session was used and not yet let go)
    active           boolean                  not null,
    holder           varchar(64),
    lease_expires_at timestamp with time zone,
    -- the last worker event id appended to the conversation's event log: where a takeover resumes
    last_event_id    varchar(200),
    -- bumped by every replica that needs the stream consumed; the holder lets go only if it has not moved
    demand           bigint                   not null,
    updated_at       timestamp with time zone not null,
    foreign key (conversation_id) references conversation (id)
);

create index worker_stream_orphans on worker_stream (active, lease_expires_at);
