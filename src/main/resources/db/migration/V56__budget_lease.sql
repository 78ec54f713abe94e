-- Per-replica budget leases (package budget). Runs unchanged on PostgreSQL and on H2 (MODE=PostgreSQL).
--
-- A replica takes part of a user's remaining budget, some of their concurrency slots and some of this
-- minute's requests in one transaction on the user's row, and then admits that user's calls from
-- memory. What a lease holds is also counted in user_budget (reserved_micros, in_flight,
-- minute_requests), so every check made on that row sees it and all leases together never pass a
-- limit. A lease whose replica died is given back after expires_at (renewed while it is in use).
create table budget_lease (
    user_id       varchar(255)             not null references user_budget (user_id),
    replica_id    varchar(64)              not null,
    amount_micros bigint                   not null,
    slots         integer                  not null,
    -- Requests of this minute taken with the lease; unused ones are given back with it.
    minute_start  timestamp with time zone not null,
    permits       integer                  not null,
    expires_at    timestamp with time zone not null,
    -- Set by another replica that had to refuse a call the budget could pay for but for this lease:
    -- the owner gives back what no call of it holds at its next sweep (within a second).
    recalled      boolean                  not null default false,
    primary key (user_id, replica_id)
);

create index budget_lease_expiry on budget_lease (expires_at);
