import type { Agent } from './agent.js';
import { logger } from './log.js';
import type { Reports } from './reports.js';
import type { RunningTurn, Session } from './session.js';
import type { TurnTraces } from './traceContext.js';
import { TurnEventMapper } from './turnEvents.js';

const log = logger('turn');

export interface BudgetDenials {
  takeBudgetDenial(conversationId: string): boolean;
  clearDenial(conversationId: string): void;
}

/**
 * Runs one turn to its end event: the agent's messages become contract events, and every way it can end
 * becomes exactly one `turn.completed` or `turn.failed` with the contract's error type.
 */
export class TurnRunner {
  constructor(
    private readonly agent: Agent,
    private readonly denials: BudgetDenials,
    private readonly reports: Reports,
    private readonly traces: TurnTraces,
  ) {}

  async run(session: Session, turn: RunningTurn, text: string): Promise<void> {
    // Before anything the turn sends: its reports, mints and gateway calls continue the command's trace.
    this.traces.begin(session.id, turn.traceparent);
    try {
      await this.runTraced(session, turn, text);
    } finally {
      this.traces.end(session.id, turn.traceparent);
    }
  }

  private async runTraced(session: Session, turn: RunningTurn, text: string): Promise<void> {
    const base = { turnId: turn.id, messageId: turn.messageId };
    const toolStarts = new Map<string, number>();
    const mapper = new TurnEventMapper(turn.id, turn.messageId, {
      event: (type, data) => session.emit(type, data),
      toolStarted: (toolUseId, name) => {
        toolStarts.set(toolUseId, Date.now());
        this.reports.toolEvent(session.id, toolUseId, name, 'started', false, 0);
      },
      toolCompleted: (toolUseId, name, isError) => {
        const started = toolStarts.get(toolUseId) ?? Date.now();
        this.reports.toolEvent(session.id, toolUseId, name, 'completed', isError, Date.now() - started);
      },
      modelCall: (usage) => this.reports.usage(session.id, usage),
    });
    this.denials.clearDenial(session.id);
    this.reports.activity(
      session.id,
      `${turn.id}:started`,
      'turn.started',
      `Working on message ${turn.messageId}.`,
    );
    let failure: string | undefined;
    try {
      for await (const message of this.agent({
        conversationId: session.id,
        text,
        signal: turn.abort.signal,
      })) {
        // After an interrupt the engine is drained to its end, not left mid-turn (a warm engine would
        // hand the rest to the next turn), but nothing more of this turn is shown.
        if (!turn.abort.signal.aborted) {
          mapper.accept(message);
        }
      }
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
    }
    if (session.isHalted()) {
      return; // a stopping or deleted session writes nothing more; a restart reports the turn
    }
    if (turn.interrupted || turn.abort.signal.aborted) {
      session.finishTurn(turn, 'turn.failed', {
        ...base,
        error: { type: 'interrupted', message: 'The turn was interrupted.' },
      });
      return;
    }
    const outcome = mapper.outcome;
    if (outcome?.kind === 'completed' && failure === undefined) {
      session.finishTurn(turn, 'turn.completed', {
        ...base,
        stopReason: outcome.stopReason,
        usage: outcome.usage,
      });
      return;
    }
    if (this.denials.takeBudgetDenial(session.id)) {
      session.finishTurn(turn, 'turn.failed', {
        ...base,
        error: { type: 'budget_exceeded', message: 'The spending limit is reached.' },
      });
      return;
    }
    const message =
      outcome?.kind === 'failed' ? outcome.message : (failure ?? 'the engine ended without an answer');
    log.warn('turn failed', { conversationId: session.id, turnId: turn.id, reason: message.slice(0, 300) });
    session.finishTurn(turn, 'turn.failed', {
      ...base,
      error: { type: 'upstream_error', message: 'The model call failed.' },
    });
  }
}
