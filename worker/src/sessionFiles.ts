import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * A session's own files under `$CLAUDE_CONFIG_DIR/talkide/sessions/{conversationId}/`: `session.json`
 * (owner and epoch) and `events.jsonl` (the event stream, for resume after a restart). The model
 * transcript is the Agent SDK's, under `$CLAUDE_CONFIG_DIR/projects/`. Appends are synchronous, so an
 * event a client saw is on disk; a line torn by a crash is ignored on load.
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

  private constructor(private readonly dir: string) {}

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

  static existing(configDir: string, conversationId: string): SessionFiles {
    return new SessionFiles(SessionFiles.directory(configDir, conversationId));
  }

  header(): SessionHeader {
    return JSON.parse(readFileSync(join(this.dir, 'session.json'), 'utf8')) as SessionHeader;
  }

  readEvents(): StoredEvent[] {
    const file = join(this.dir, 'events.jsonl');
    if (!existsSync(file)) {
      return [];
    }
    const events: StoredEvent[] = [];
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') {
        continue;
      }
      try {
        events.push(JSON.parse(line) as StoredEvent);
      } catch {
        break; // the last line of a worker that died mid-write; everything before it is intact
      }
    }
    return events;
  }

  appendEvent(event: StoredEvent): void {
    if (this.closed) {
      return;
    }
    appendFileSync(join(this.dir, 'events.jsonl'), `${JSON.stringify(event)}\n`);
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
