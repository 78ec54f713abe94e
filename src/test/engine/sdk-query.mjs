// Runs one prompt through the Agent SDK's query() with partial messages, as the product's workers do,
// and prints each message it yields as one JSON line (stream_event lines carry the text deltas).
// Usage: node sdk-query.mjs "<prompt>"; the gateway, token and tools come from the environment.
import { query } from '@anthropic-ai/claude-agent-sdk';

const prompt = process.argv[2];
const allowedTools = (process.env.ENGINE_ALLOWED_TOOLS || '').split(',').filter(Boolean);

for await (const message of query({
  prompt,
  options: {
    cwd: process.cwd(),
    env: process.env,
    includePartialMessages: true,
    allowedTools,
    permissionMode: 'acceptEdits',
    settingSources: [],
    maxTurns: 5,
    stderr: (data) => process.stderr.write(data),
  },
})) {
  process.stdout.write(JSON.stringify(message) + '\n');
}
