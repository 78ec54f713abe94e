-- The W3C traceparent of the request that sent a message, so its delivery to the worker (later, perhaps by
-- another replica) continues that trace. Null when the request was not traced.
alter table conversation_message add column trace_parent varchar(55);
