import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { logger } from './log.js';

const log = logger('lease');

/**
 * One pod serves a session at a time: a lease file in the session's directory on the shared
 * volume, `lease.json` {owner, fence, expiresAt}. A worker takes it when it opens or loads the session
 * (created with O_EXCL, so two workers cannot both create it), renews it every third of its lifetime and
 * removes it when it stops serving (after its drain). Another worker gets `SessionHeldElsewhere` until the
 * lease is released or has expired (its holder died); it then takes it over with the next fence number.
 * Fenced: before every append the holder checks that the file still names it; one that lost its lease
 * (frozen past its expiry, then taken over) writes nothing more.
 */
export class SessionHeldElsewhere extends Error {}
export class LeaseLost extends Error {}

interface LeaseRecord {
  owner: string;
  fence: number;
  expiresAt: number;
}

export class SessionLeases {
  readonly owner = randomUUID();
  private readonly held = new Map<string, { dir: string; fence: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly ttlMs: number,
    /** Called when a renewal finds the lease taken: the session must stop at once. */
    private readonly onLost: (conversationId: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => this.renewAll(), Math.max(50, Math.floor(ttlMs / 3)));
    this.timer.unref();
  }

  /** Takes (or keeps) the lease of the session in `dir`; throws SessionHeldElsewhere if another holds it. */
  acquire(conversationId: string, dir: string): number {
    const mine = this.held.get(conversationId);
    if (mine && this.stillMine(dir)) {
      return mine.fence;
    }
    const file = join(dir, 'lease.json');
    for (let attempt = 0; attempt < 2; attempt++) {
      const current = read(file);
      if (current === undefined) {
        const fence = this.lastFence(dir) + 1;
        if (this.create(file, fence)) {
          this.held.set(conversationId, { dir, fence });
          return fence;
        }
        continue; // another worker created it first
      }
      if (current.owner === this.owner) {
        this.held.set(conversationId, { dir, fence: current.fence });
        return current.fence;
      }
      if (current.expiresAt > this.now()) {
        throw new SessionHeldElsewhere('another worker serves this session');
      }
      // Expired: its holder stopped renewing. Move it aside (one taker wins the rename), then create anew.
      try {
        const aside = join(dir, `lease.expired.${this.owner}`);
        renameSync(file, aside);
        writeFileSync(join(dir, 'lease.fence'), String(current.fence));
        rmSync(aside, { force: true });
        log.warn('took over an expired session lease', { conversationId, fence: current.fence + 1 });
      } catch {
        // another worker moved it first; look again
      }
    }
    throw new SessionHeldElsewhere('another worker is taking this session over');
  }

  /** Whether the lease file still names this worker: checked before every append. */
  stillMine(dir: string): boolean {
    return read(join(dir, 'lease.json'))?.owner === this.owner;
  }

  /** Gives the lease up (a stop after its drain, a deleted session). */
  release(conversationId: string): void {
    const mine = this.held.get(conversationId);
    this.held.delete(conversationId);
    if (mine && this.stillMine(mine.dir)) {
      writeFileSync(join(mine.dir, 'lease.fence'), String(mine.fence));
      rmSync(join(mine.dir, 'lease.json'), { force: true });
    }
  }

  releaseAll(): void {
    clearInterval(this.timer);
    for (const id of [...this.held.keys()]) this.release(id);
  }

  forget(conversationId: string): void {
    this.held.delete(conversationId);
  }

  private renewAll(): void {
    for (const [id, lease] of this.held) {
      const file = join(lease.dir, 'lease.json');
      if (!this.stillMine(lease.dir)) {
        this.held.delete(id);
        log.warn('session lease lost; the session stops here', { conversationId: id });
        this.onLost(id);
        continue;
      }
      try {
        writeFileSync(file, this.record(lease.fence));
      } catch {
        // the volume is away for a moment; the next renewal tries again before the lease expires
      }
    }
  }

  private create(file: string, fence: number): boolean {
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch {
      return false;
    }
    try {
      writeSync(fd, this.record(fence));
    } finally {
      closeSync(fd);
    }
    return true;
  }

  private record(fence: number): string {
    return JSON.stringify({
      owner: this.owner,
      fence,
      expiresAt: this.now() + this.ttlMs,
    } satisfies LeaseRecord);
  }

  /** The fence of the last lease released or taken over here, so fences only grow. */
  private lastFence(dir: string): number {
    try {
      return Number(readFileSync(join(dir, 'lease.fence'), 'utf8')) || 0;
    } catch {
      return 0;
    }
  }
}

function read(file: string): LeaseRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as LeaseRecord;
    return typeof parsed.owner === 'string' ? parsed : undefined;
  } catch {
    return undefined; // absent; or being written by its creator (then the O_EXCL create fails and we look again)
  }
}
