import { Session } from './session.js';
import { SessionFiles } from './sessionFiles.js';
import type { SessionLeases } from './sessionLease.js';

/**
 * The worker's sessions: in memory while it runs, on disk under the config directory for good. After a
 * restart a session is loaded on first use exactly where it stopped; a turn the old process was running
 * is closed with `turn.failed` / `worker_restarted`. Once halted the store serves nothing more, so a
 * dying worker never accepts a message its successor would then answer as a duplicate.
 */
export class WorkerStopping extends Error {}
export class SessionOwnedByOther extends Error {}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private halted = false;

  constructor(
    private readonly configDir: string,
    private readonly now: () => number = Date.now,
    /** One worker per session on the shared volume; none in unit tests of a single store. */
    readonly leases?: SessionLeases,
  ) {}

  /** A renewal found the session's lease taken: stop serving it here at once. */
  leaseLost(conversationId: string): void {
    this.sessions.get(conversationId)?.halt();
    this.sessions.delete(conversationId);
  }

  private guard(files: SessionFiles, conversationId: string): SessionFiles {
    const leases = this.leases;
    if (leases) {
      leases.acquire(conversationId, files.dir);
      files.guard = () => leases.stillMine(files.dir);
    }
    return files;
  }

  open(conversationId: string, userId: string): { session: Session; created: boolean; resumed: boolean } {
    const existing = this.find(conversationId);
    if (existing) {
      if (existing.userId !== userId) {
        throw new SessionOwnedByOther('session belongs to another user');
      }
      return { session: existing, created: false, resumed: true };
    }
    const epoch = this.now().toString(36);
    this.leases?.acquire(conversationId, SessionFiles.prepare(this.configDir, conversationId));
    const files = SessionFiles.create(this.configDir, {
      conversationId,
      userId,
      epoch,
      createdAt: new Date(this.now()).toISOString(),
    });
    this.guard(files, conversationId);
    const session = new Session(conversationId, userId, epoch, files);
    this.sessions.set(conversationId, session);
    session.emit('session.status', { status: 'ready', detail: 'new session' });
    return { session, created: true, resumed: false };
  }

  /** The session in memory, or loaded from disk after a restart. */
  find(conversationId: string): Session | undefined {
    this.refuseIfHalted();
    const session = this.sessions.get(conversationId);
    if (session && !session.isHalted()) {
      return session;
    }
    this.sessions.delete(conversationId); // fenced off: load it again only if the lease comes back
    if (!SessionFiles.exist(this.configDir, conversationId)) {
      return undefined;
    }
    const loaded = this.load(conversationId);
    this.sessions.set(conversationId, loaded);
    return loaded;
  }

  delete(conversationId: string): void {
    this.find(conversationId)?.delete();
    this.sessions.delete(conversationId);
    this.leases?.forget(conversationId); // its directory, lease included, is gone
  }

  /** Stops every session as a killed process would. */
  haltAll(): void {
    this.halted = true;
    for (const session of this.sessions.values()) {
      session.halt();
    }
    this.sessions.clear();
    this.leases?.releaseAll(); // after the halt: nothing more is written, the successor may take them
  }

  size(): number {
    return this.sessions.size;
  }

  private refuseIfHalted(): void {
    if (this.halted) {
      throw new WorkerStopping('the worker is stopping');
    }
  }

  private load(conversationId: string): Session {
    const files = this.guard(SessionFiles.existing(this.configDir, conversationId), conversationId);
    const header = files.header();
    const session = new Session(conversationId, header.userId, header.epoch, files);
    session.restore(files.load());
    const unfinished = session.unfinishedTurn();
    if (unfinished) {
      session.emit('turn.failed', {
        turnId: unfinished.turnId,
        messageId: unfinished.messageId,
        error: { type: 'worker_restarted', message: 'The worker restarted while this turn was running.' },
      });
    }
    session.emit('session.status', { status: 'resumed', detail: 'session resumed from disk' });
    return session;
  }
}
