/**
 * Turns the Agent SDK's messages into the contract's events (docs/worker-contract.md): text deltas,
 * tool uses and results, and the turn's end with its usage. Only the main agent's messages count; a
 * subagent's (parent_tool_use_id set) stay inside the tool that ran it. The SDK's message types are read
 * structurally, so a scripted agent in tests speaks the same shapes.
 */
export interface TurnSink {
  event(type: string, data: Record<string, unknown>): void;
  toolStarted?(toolUseId: string, name: string): void;
  toolCompleted?(toolUseId: string, name: string, isError: boolean): void;
  modelCall?(usage: CallUsage): void;
}

export interface CallUsage {
  messageId: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
}

export type TurnOutcome =
  | { kind: 'completed'; stopReason: string; usage: Record<string, number> }
  | { kind: 'failed'; message: string };

const MAX_OUTPUT = 4000;

type Json = Record<string, unknown>;

export class TurnEventMapper {
  private readonly toolNames = new Map<string, string>();
  private call: CallUsage | undefined;
  outcome: TurnOutcome | undefined;

  constructor(
    private readonly turnId: string,
    private readonly messageId: string,
    private readonly sink: TurnSink,
  ) {}

  accept(message: unknown): void {
    const m = message as Json;
    if (m.parent_tool_use_id) {
      return;
    }
    switch (m.type) {
      case 'stream_event':
        this.streamEvent(m.event as Json);
        break;
      case 'assistant':
        this.assistant(m.message as Json);
        break;
      case 'user':
        this.user(m.message as Json);
        break;
      case 'result':
        this.result(m);
        break;
      default:
        break;
    }
  }

  private streamEvent(event: Json): void {
    if (event.type === 'content_block_delta') {
      const delta = event.delta as Json;
      if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') {
        this.sink.event('text.delta', { turnId: this.turnId, messageId: this.messageId, text: delta.text });
      }
    } else if (event.type === 'message_start') {
      const message = event.message as Json;
      const usage = (message.usage ?? {}) as Json;
      this.call = {
        messageId: String(message.id ?? ''),
        model: String(message.model ?? ''),
        inputTokens: num(usage.input_tokens),
        outputTokens: num(usage.output_tokens),
        cacheCreationInputTokens: num(usage.cache_creation_input_tokens),
        cacheReadInputTokens: num(usage.cache_read_input_tokens),
      };
    } else if (event.type === 'message_delta' && this.call) {
      const usage = (event.usage ?? {}) as Json;
      this.call.outputTokens = num(usage.output_tokens) || this.call.outputTokens;
    } else if (event.type === 'message_stop' && this.call) {
      this.sink.modelCall?.(this.call);
      this.call = undefined;
    }
  }

  private assistant(message: Json): void {
    for (const block of blocks(message.content)) {
      if (block.type === 'tool_use' && typeof block.id === 'string') {
        const name = String(block.name ?? 'tool');
        this.toolNames.set(block.id, name);
        this.sink.event('tool.started', {
          turnId: this.turnId,
          messageId: this.messageId,
          toolUseId: block.id,
          name,
          input: block.input ?? {},
        });
        this.sink.toolStarted?.(block.id, name);
      }
    }
  }

  private user(message: Json): void {
    for (const block of blocks(message.content)) {
      if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
        const name = this.toolNames.get(block.tool_use_id) ?? 'tool';
        const isError = block.is_error === true;
        this.sink.event('tool.completed', {
          turnId: this.turnId,
          messageId: this.messageId,
          toolUseId: block.tool_use_id,
          name,
          isError,
          output: outputText(block.content),
        });
        this.sink.toolCompleted?.(block.tool_use_id, name, isError);
      }
    }
  }

  private result(result: Json): void {
    const usage = (result.usage ?? {}) as Json;
    if (result.subtype === 'success' && result.is_error !== true) {
      this.outcome = {
        kind: 'completed',
        stopReason:
          typeof result.stop_reason === 'string' && result.stop_reason ? result.stop_reason : 'end_turn',
        usage: {
          inputTokens: num(usage.input_tokens),
          outputTokens: num(usage.output_tokens),
          cacheCreationInputTokens: num(usage.cache_creation_input_tokens),
          cacheReadInputTokens: num(usage.cache_read_input_tokens),
        },
      };
    } else if (result.subtype === 'error_max_turns') {
      this.outcome = {
        kind: 'completed',
        stopReason: 'max_turns',
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    } else {
      const errors = Array.isArray(result.errors) ? result.errors.join('; ') : '';
      const text = typeof result.result === 'string' ? result.result : '';
      this.outcome = { kind: 'failed', message: (errors || text || String(result.subtype)).slice(0, 500) };
    }
  }
}

function blocks(content: unknown): Json[] {
  return Array.isArray(content) ? (content.filter((b) => b && typeof b === 'object') as Json[]) : [];
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}

function outputText(content: unknown): string {
  let text: string;
  if (typeof content === 'string') {
    text = content;
  } else {
    text = blocks(content)
      .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
      .join('');
  }
  return text.length > MAX_OUTPUT ? `${text.slice(0, MAX_OUTPUT)}…` : text;
}
