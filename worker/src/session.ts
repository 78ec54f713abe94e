import { randomUUID } from 'node:crypto';
import type { SessionFiles, StoredEvent } from './sessionFiles.js';

/**
 * One conversation's session: its ordered events, its open streams, the messages it accepted and the
 * turn that runs. Node runs this on one thread, so "persist, remember, hand to every stream" is one step
 * and a stream never misses or repeats an event.
 */
export type Acceptance = 'started' | 'duplicate' | 'busy' | 'closed';

export interface Subscriber {
  send(event: StoredEvent): void;
  end(): void;
}

export interface RunningTurn {
  id: string;
  messageId: string;
  abort: AbortController;
  /** Set once the turn is interrupted on purpose, so the agent's abort is reported as `interrupted`. */
  interrupted: boolean;
  /** The message command's W3C `traceparent`: the turn's calls back continue that trace. */
  traceparent?: string | undefined;
}

export class Session {
  private readonly events: StoredEvent[] = [];
  private readonly subscribers = new Set<Subscriber>();
  private readonly accepted = new Set<string>();
  private seq = 0;
  private turn: RunningTurn | undefined;
  private halted = false;

  constructor(
    readonly id: string,
    readonly userId: string,
    private readonly epoch: string,
    private readonly files: SessionFiles,
  ) {}

  /** Rebuilds the state from the files; used once, right after loading. */
  restore(stored: StoredEvent[]): void {
    for (const event of stored) {
      this.events.push(event);
      this.seq = Number(event.id.slice(event.id.lastIndexOf('-') + 1));
      if (event.type === 'turn.started') {
        this.accepted.add(String(event.data.messageId));
      }
    }
  }

  /** Whether a turn ever started here: the SDK then has a transcript to resume. */
  hasHistory(): boolean {
    return this.accepted.size > 0;
  }

  /** The turn that was running when the worker died, if any: started but never ended. */
  unfinishedTurn(): Record<string, unknown> | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const event = this.events[i];
      if (event?.type === 'turn.completed' || event?.type === 'turn.failed') {
        return undefined;
      }
      if (event?.type === 'turn.started') {
        return event.data;
      }
    }
    return undefined;
  }

  emit(type: string, data: Record<string, unknown>): StoredEvent {
    const event: StoredEvent = { id: `${this.epoch}-${++this.seq}`, type, data };
    if (this.halted) {
      return event; // a halted worker writes nothing more, as a killed process would
    }
    this.files.appendEvent(event);
    this.events.push(event);
    for (const subscriber of this.subscribers) {
      subscriber.send(event);
    }
    return event;
  }

  /** Registers a stream and returns what it missed after `lastEventId`. */
  subscribe(lastEventId: string | undefined, subscriber: Subscriber): StoredEvent[] {
    if (this.halted) {
      subscriber.end();
    } else {
      this.subscribers.add(subscriber);
    }
    return this.events.slice(this.replayFrom(lastEventId));
  }

  unsubscribe(subscriber: Subscriber): void {
    this.subscribers.delete(subscriber);
  }

  /** Index of the first event after `lastEventId`; an id of another epoch replays everything. */
  private replayFrom(lastEventId: string | undefined): number {
    if (!lastEventId?.startsWith(`${this.epoch}-`)) {
      return 0;
    }
    const after = Number(lastEventId.slice(this.epoch.length + 1));
    if (!Number.isInteger(after) || after < 0) {
      return 0;
    }
    return Math.min(after, this.events.length);
  }

  /**
   * Accepted and recorded as started in one step: a stop comes before (the message is refused and sent
   * again) or after (a restart finds it started and reports it failed), never between.
   */
  accept(messageId: string, traceparent?: string): { acceptance: Acceptance; turn?: RunningTurn } {
    if (this.halted) {
      return { acceptance: 'closed' };
    }
    if (this.accepted.has(messageId)) {
      return { acceptance: 'duplicate' };
    }
    if (this.turn) {
      return { acceptance: 'busy' };
    }
    const turn: RunningTurn = {
      id: randomUUID(),
      messageId,
      abort: new AbortController(),
      interrupted: false,
      traceparent,
    };
    this.emit('turn.started', { turnId: turn.id, messageId });
    this.accepted.add(messageId);
    this.turn = turn;
    return { acceptance: 'started', turn };
  }

  /** Ends the turn and emits its last event in one step, so no other message slips in between. */
  finishTurn(
    ended: RunningTurn,
    type: 'turn.completed' | 'turn.failed',
    data: Record<string, unknown>,
  ): void {
    if (this.turn !== ended) {
      return;
    }
    this.turn = undefined;
    this.emit(type, data);
  }

  runningTurn(): RunningTurn | undefined {
    return this.turn;
  }

  isHalted(): boolean {
    return this.halted;
  }

  /** Stops everything as a killed process would: no further event is written or sent. */
  halt(): void {
    this.halted = true;
    for (const subscriber of this.subscribers) {
      subscriber.end();
    }
    this.subscribers.clear();
    this.files.close();
    this.turn?.abort.abort();
  }

  /** Ends the session for good: the turn stops, the streams end, the files are removed. */
  delete(): void {
    this.halt();
    this.files.delete();
  }
}
