-- The MCP servers a tenant-environment's worker offers (JSON list of name, url, transport, headers). A column
-- of its own, like worker_pod (V59): set through its own admin endpoint, never echoed with the desired state,
-- and the previous release reads `spec` refusing unknown keys. Nullable, so expand-only. Runs unchanged on
-- PostgreSQL and H2.

alter table tenant_environment_desired_state add column mcp_servers varchar(131072);
