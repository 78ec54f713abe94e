import { randomUUID } from 'node:crypto';
import type { SessionFiles, StoredEvent } from './sessionFiles.js';
import { LeaseLost } from './sessionLease.js';

/**
 * One conversation's session: its ordered events, its open streams, the messages it accepted and the
 * turn that runs. Node runs this on one thread, so "persist, remember, hand to every stream" is one step
 * and a stream never misses or repeats an event.
 *
 * Durable before acknowledged: an event reaches a stream only after it is appended to the event log.
 * Text deltas are batched (up to `BATCH_MS` or `BATCH_EVENTS`) into one append; any other event flushes
 * the batch with it at once, so `turn.started` is on disk before the 202 that accepts its message, and a
 * turn's end is never ahead of its text. Memory is bounded: the last `IN_MEMORY` events are kept for
 * resuming streams, older replays are read from the log.
 */
const BATCH_MS = 15;
const BATCH_EVENTS = 64;
const IN_MEMORY = 500;

export function seqOf(id: string): number {
  return Number(id.slice(id.lastIndexOf('-') + 1));
}

export type Acceptance = 'started' | 'duplicate' | 'busy' | 'saturated' | 'fenced' | 'closed';

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
  /** The latest events, at most IN_MEMORY. */
  private recent: StoredEvent[] = [];
  /** Emitted but not yet appended (text deltas of the running batch): no stream has them yet. */
  private pending: StoredEvent[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** The turn started and not ended, as the log says (for a restart to report). */
  private openTurn: Record<string, unknown> | undefined;
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

  /** Rebuilds the state from the log; used once, right after loading. */
  restore(stored: StoredEvent[]): void {
    for (const event of stored) {
      this.seq = Math.max(this.seq, seqOf(event.id));
      if (event.type === 'turn.started') {
        this.accepted.add(String(event.data.messageId));
        this.openTurn = event.data;
      } else if (event.type === 'turn.completed' || event.type === 'turn.failed') {
        this.openTurn = undefined;
      }
    }
    this.recent = stored.slice(-IN_MEMORY);
  }

  /** Whether a turn ever started here: the SDK then has a transcript to resume. */
  hasHistory(): boolean {
    return this.accepted.size > 0;
  }

  /** The turn that was running when the worker died, if any: started but never ended. */
  unfinishedTurn(): Record<string, unknown> | undefined {
    return this.openTurn;
  }

  emit(type: string, data: Record<string, unknown>): StoredEvent {
    const event: StoredEvent = { id: `${this.epoch}-${++this.seq}`, type, data };
    if (this.halted) {
      return event; // a halted worker writes nothing more, as a killed process would
    }
    if (type === 'turn.started') {
      this.openTurn = data;
    } else if (type === 'turn.completed' || type === 'turn.failed') {
      this.openTurn = undefined;
    }
    this.pending.push(event);
    if (type === 'text.delta' && this.pending.length < BATCH_EVENTS) {
      this.flushTimer ??= setTimeout(() => this.flush(), BATCH_MS);
    } else {
      this.flush();
    }
    return event;
  }

  /** Appends the pending events in one write, then hands them to the streams. */
  flush(): void {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    if (this.halted || this.pending.length === 0) {
      return;
    }
    const batch = this.pending;
    this.pending = [];
    try {
      this.files.appendEvents(batch);
    } catch (e) {
      if (e instanceof LeaseLost) {
        this.halt(); // fenced: another worker serves this session now; nothing more is written or sent
        return;
      }
      throw e;
    }
    for (const event of batch) {
      this.recent.push(event);
      for (const subscriber of this.subscribers) {
        subscriber.send(event);
      }
    }
    if (this.recent.length > IN_MEMORY * 2) {
      this.recent = this.recent.slice(-IN_MEMORY);
    }
  }

  /** How many events are held in memory (bounded). */
  eventsInMemory(): number {
    return this.recent.length + this.pending.length;
  }

  /** Registers a stream and returns what it missed after `lastEventId`. */
  subscribe(lastEventId: string | undefined, subscriber: Subscriber): StoredEvent[] {
    if (this.halted) {
      subscriber.end();
    } else {
      this.subscribers.add(subscriber);
    }
    return this.replayAfter(lastEventId);
  }

  unsubscribe(subscriber: Subscriber): void {
    this.subscribers.delete(subscriber);
  }

  /** The events after `lastEventId`; an id of another epoch (or none) replays everything. */
  private replayAfter(lastEventId: string | undefined): StoredEvent[] {
    const after = lastEventId?.startsWith(`${this.epoch}-`) ? seqOf(lastEventId) : 0;
    const from = Number.isInteger(after) && after > 0 ? after : 0;
    const oldest = this.recent[0];
    if (oldest === undefined || seqOf(oldest.id) <= from + 1) {
      return this.recent.filter((e) => seqOf(e.id) > from);
    }
    // Older than memory holds: from the log (the in-memory tail is on disk too, durable first).
    return this.files.readEvents().filter((e) => seqOf(e.id) > from);
  }

  /**
   * Accepted and recorded as started in one step: a stop comes before (the message is refused and sent
   * again) or after (a restart finds it started and reports it failed), never between.
   */
  accept(
    messageId: string,
    traceparent?: string,
    admit: () => boolean = () => true,
  ): { acceptance: Acceptance; turn?: RunningTurn } {
    if (this.halted) {
      return { acceptance: 'closed' };
    }
    if (this.accepted.has(messageId)) {
      return { acceptance: 'duplicate' };
    }
    if (this.turn) {
      return { acceptance: 'busy' };
    }
    if (!admit()) {
      return { acceptance: 'saturated' }; // every engine the pod can hold is running a turn
    }
    const turn: RunningTurn = {
      id: randomUUID(),
      messageId,
      abort: new AbortController(),
      interrupted: false,
      traceparent,
    };
    this.emit('turn.started', { turnId: turn.id, messageId });
    if (this.halted) {
      // Not on disk (this worker lost the session's lease): not accepted, so it is sent again elsewhere.
      return { acceptance: 'fenced' };
    }
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
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.pending = []; // never appended, never acknowledged
    this.files.close();
    this.turn?.abort.abort();
  }

  /** Ends the session for good: the turn stops, the streams end, the files are removed. */
  delete(): void {
    this.halt();
    this.files.delete();
  }
}
