/**
 * Worker reports: tool-use events, token usage, activity and the issue reports of the
 * talkide-issue-tracking MCP server, posted by workers on {@code /api/internal/worker/*} for the
 * conversation their WorkerToken is scoped to, stored durably and idempotently, and readable by the
 * conversation's owner and by operators.
 */
@NullMarked
package app.talkide.controlplane.report;

import org.jspecify.annotations.NullMarked;
