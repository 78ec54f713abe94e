-- Compaction of completed turns (package conversation.compaction). Runs unchanged on PostgreSQL and H2.
--
-- One row per compacted conversation. A compaction locks it (select ... for update), so two replicas
-- compacting the same conversation take turns and the second finds the work done. Appends never touch
-- it: they lock conversation_sequence, and compaction only rewrites and deletes rows of ended turns.
create table conversation_compaction (
    conversation_id uuid   primary key,
    -- every turn that ended at or before this seq has been folded into one event per content block
    folded_through  bigint not null default 0,
    -- the folded turns' delta rows at or before this seq have been deleted
    purged_through  bigint not null default 0,
    -- the log up to this seq held no ended turn left to fold when last looked at (skip until it grows)
    idle_through    bigint not null default 0,
    foreign key (conversation_id) references conversation (id)
);
