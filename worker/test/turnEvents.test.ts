import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CallUsage, TurnEventMapper } from '../src/turnEvents.js';

/** The SDK's messages, as the engine sends them for a turn with one Bash call, become contract events. */
function run(messages: unknown[]) {
  const events: { type: string; data: Record<string, unknown> }[] = [];
  const calls: CallUsage[] = [];
  const tools: string[] = [];
  const mapper = new TurnEventMapper('t1', 'm1', {
    event: (type, data) => events.push({ type, data }),
    modelCall: (usage) => calls.push(usage),
    toolStarted: (id, name) => tools.push(`started ${id} ${name}`),
    toolCompleted: (id, name, isError) => tools.push(`completed ${id} ${name} ${isError}`),
  });
  for (const message of messages) mapper.accept(message);
  return { events, calls, tools, outcome: mapper.outcome };
}

const stream = (event: Record<string, unknown>, parent: string | null = null) => ({
  type: 'stream_event',
  parent_tool_use_id: parent,
  event,
});

test('text deltas, a tool use and its result, and the result with usage', () => {
  const { events, calls, tools, outcome } = run([
    { type: 'system', subtype: 'init' },
    stream({
      type: 'message_start',
      message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 12, cache_read_input_tokens: 3 } },
    }),
    stream({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me look.' } }),
    stream({
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: '{"co' },
    }),
    stream({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
    stream({ type: 'message_stop' }),
    {
      type: 'assistant',
      parent_tool_use_id: null,
      message: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] },
    },
    {
      type: 'user',
      parent_tool_use_id: null,
      message: {
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a.txt\n' }] },
        ],
      },
    },
    stream({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Done.' } }),
    {
      type: 'result',
      subtype: 'success',
      is_error: false,
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 30,
        output_tokens: 14,
        cache_creation_input_tokens: 1,
        cache_read_input_tokens: 3,
      },
    },
  ]);
  assert.deepEqual(
    events.map((e) => e.type),
    ['text.delta', 'tool.started', 'tool.completed', 'text.delta'],
  );
  assert.deepEqual(events[1]?.data, {
    turnId: 't1',
    messageId: 'm1',
    toolUseId: 'toolu_1',
    name: 'Bash',
    input: { command: 'ls' },
  });
  assert.deepEqual(events[2]?.data, {
    turnId: 't1',
    messageId: 'm1',
    toolUseId: 'toolu_1',
    name: 'Bash',
    isError: false,
    output: 'a.txt\n',
  });
  assert.deepEqual(outcome, {
    kind: 'completed',
    stopReason: 'end_turn',
    usage: { inputTokens: 30, outputTokens: 14, cacheCreationInputTokens: 1, cacheReadInputTokens: 3 },
  });
  assert.deepEqual(calls, [
    {
      messageId: 'msg_1',
      model: 'claude-x',
      inputTokens: 12,
      outputTokens: 9,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 3,
    },
  ]);
  assert.deepEqual(tools, ['started toolu_1 Bash', 'completed toolu_1 Bash false']);
});

test("a subagent's messages stay inside its tool; a long tool output is shortened", () => {
  const { events } = run([
    stream(
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'inner' } },
      'toolu_task',
    ),
    {
      type: 'assistant',
      parent_tool_use_id: null,
      message: { content: [{ type: 'tool_use', id: 'toolu_2', name: 'Read', input: {} }] },
    },
    {
      type: 'user',
      parent_tool_use_id: null,
      message: {
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: 'x'.repeat(10_000) },
        ],
      },
    },
  ]);
  assert.deepEqual(
    events.map((e) => e.type),
    ['tool.started', 'tool.completed'],
  );
  assert.equal(events[1]?.data.isError, true);
  assert.ok(String(events[1]?.data.output).length <= 4001);
});

test('an error result is a failure; hitting max turns completes with stopReason max_turns', () => {
  assert.equal(
    run([{ type: 'result', subtype: 'error_during_execution', is_error: true, errors: ['boom'] }]).outcome
      ?.kind,
    'failed',
  );
  assert.equal(
    run([{ type: 'result', subtype: 'success', is_error: true, result: 'API Error: 500' }]).outcome?.kind,
    'failed',
  );
  assert.deepEqual(run([{ type: 'result', subtype: 'error_max_turns', is_error: true }]).outcome, {
    kind: 'completed',
    stopReason: 'max_turns',
    usage: { inputTokens: 0, outputTokens: 0 },
  });
});
