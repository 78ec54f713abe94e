import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { LeaseLost } from './sessionLease.js';

/**
 * A session's own files under `$CLAUDE_CONFIG_DIR/talkide/sessions/{conversationId}/`: `session.json`
 * (owner and epoch) and `events.jsonl` (the event stream, for resume after a restart). The model
 * transcript is the Agent SDK's, under `$CLAUDE_CONFIG_DIR/projects/`. Appends are synchronous and whole
 * batches (one write, then the file is closed, which an NFS client flushes to the server), and the
 * session hands an event to its streams only after its append returned: durable before acknowledged. A
 * worker killed mid-append leaves a torn last line; `load` cuts it off before anything is appended, so
 * it can never hide the events written after it, and its ids (never acknowledged) are the next ones.
 */
export interface StoredEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export interface SessionHeader {
  conversationId: string;
  userId: string;
  epoch: string;
  createdAt: string;
}

export class SessionFiles {
  private closed = false;
  /** Checked before every append: false once this worker no longer holds the session's lease. */
  guard: () => boolean = () => true;

  private constructor(readonly dir: string) {}

  static directory(configDir: string, conversationId: string): string {
    return join(configDir, 'talkide', 'sessions', conversationId);
  }

  static exist(configDir: string, conversationId: string): boolean {
    return existsSync(join(SessionFiles.directory(configDir, conversationId), 'session.json'));
  }

  static create(configDir: string, header: SessionHeader): SessionFiles {
    const dir = SessionFiles.directory(configDir, header.conversationId);
    mkdirSync(dir, { recursive: true });
    const temporary = join(dir, 'session.json.tmp');
    writeFileSync(temporary, JSON.stringify(header));
    rmSync(join(dir, 'events.jsonl'), { force: true });
    renameSync(temporary, join(dir, 'session.json'));
    return new SessionFiles(dir);
  }

  static prepare(configDir: string, conversationId: string): string {
    const dir = SessionFiles.directory(configDir, conversationId);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  static existing(configDir: string, conversationId: string): SessionFiles {
    return new SessionFiles(SessionFiles.directory(configDir, conversationId));
  }

  header(): SessionHeader {
    return JSON.parse(readFileSync(join(this.dir, 'session.json'), 'utf8')) as SessionHeader;
  }

  /**
   * Every event on disk, for the session's owner loading it: a torn tail is cut off the file, so the next
   * append starts on a clean line. A line that does not parse in the middle (never written by this code)
   * is skipped, never taken as the end.
   */
  load(): StoredEvent[] {
    const file = join(this.dir, 'events.jsonl');
    if (!existsSync(file)) {
      return [];
    }
    const bytes = readFileSync(file);
    const { events, end } = parse(bytes);
    if (end < bytes.length) {
      truncateSync(file, end);
    }
    return events;
  }

  /** The events on disk, read only (a replay older than what the session keeps in memory). */
  readEvents(): StoredEvent[] {
    const file = join(this.dir, 'events.jsonl');
    return existsSync(file) ? parse(readFileSync(file)).events : [];
  }

  /** One write for the batch: it lands whole or, if the worker dies mid-write, as a torn tail `load` cuts. */
  appendEvents(events: StoredEvent[]): void {
    if (this.closed || events.length === 0) {
      return;
    }
    if (!this.guard()) {
      throw new LeaseLost('another worker holds this session now');
    }
    appendFileSync(join(this.dir, 'events.jsonl'), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }

  /** No more writes, as after a kill. */
  close(): void {
    this.closed = true;
  }

  delete(): void {
    this.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The complete lines' events, and where the last complete line ends (the rest is a torn tail). */
function parse(bytes: Buffer): { events: StoredEvent[]; end: number } {
  const events: StoredEvent[] = [];
  let start = 0;
  let end = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline < 0) {
      break; // no line end: the write was torn
    }
    const line = bytes.subarray(start, newline).toString('utf8');
    start = newline + 1;
    end = start;
    if (line.trim() === '') {
      continue;
    }
    try {
      events.push(JSON.parse(line) as StoredEvent);
    } catch {
      // A complete line that does not parse: skipped, so it cannot hide what follows.
    }
  }
  return { events, end };
}
