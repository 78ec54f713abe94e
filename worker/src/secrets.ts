import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type CommandKey, ConfigError, parseCommandKeys } from './config.js';
import { logger } from './log.js';

const log = logger('secrets');

/**
 * The worker's two secrets: the identity token (mints WorkerTokens) and the command keys (verify the
 * control plane's commands). In a pod they are files of the mounted Secret `talkide-worker-token`
 * (`identity-token`, `command-key`), never environment variables: a process's initial environment stays
 * readable in `/proc/<pid>/environ` for its whole life, by every process of the same uid. The kubelet
 * updates a mounted Secret in place (a new `..data` link), so each value is re-read when its file
 * changed, at most once per `recheckMs`: a rotated token or key is used without a restart. A file that
 * cannot be read or parsed after a rotation keeps the last good value (logged, value never).
 */
export interface WorkerSecrets {
  identityToken(): string;
  commandKeys(): CommandKey[];
}

/** Secrets given once (local mode's environment, tests). */
export function fixedSecrets(identityToken: string, commandKeys: CommandKey[]): WorkerSecrets {
  return { identityToken: () => identityToken, commandKeys: () => commandKeys };
}

/**
 * A file the kubelet may swap (a mounted Secret): parsed at start (a bad file stops it), re-read when its
 * stamp changed, at most once per `recheckMs`; a bad new version keeps the last good value.
 */
export class WatchedFile<T> {
  private value: T;
  private stamp: string;
  private checkedAt: number;
  /** Raised by every re-read that changed the value's source: engines set up with an older one are stale. */
  private version = 0;

  constructor(
    private readonly path: string,
    private readonly parse: (text: string) => T,
    private readonly recheckMs: number,
    private readonly now: () => number,
    private readonly what = 'secret file',
  ) {
    this.value = parse(read(path));
    this.stamp = stampOf(path);
    this.checkedAt = now();
  }

  /** The version of the value `get()` returns now. */
  current(): { value: T; version: number } {
    const value = this.get();
    return { value, version: this.version };
  }

  get(): T {
    const now = this.now();
    if (now - this.checkedAt < this.recheckMs) {
      return this.value;
    }
    this.checkedAt = now;
    try {
      const stamp = stampOf(this.path);
      if (stamp !== this.stamp) {
        this.value = this.parse(read(this.path));
        this.stamp = stamp;
        this.version += 1;
        log.info(`${this.what} re-read`, { file: this.path });
      }
    } catch (e) {
      log.warn(`${this.what} unreadable; keeping the last value`, {
        file: this.path,
        error: e instanceof ConfigError ? e.message : 'unreadable',
      });
    }
    return this.value;
  }
}

/** The Secret mounted as files in `dir`; a missing or malformed file stops the start, naming the file. */
export function secretFiles(dir: string, recheckMs = 1000, now: () => number = Date.now): WorkerSecrets {
  const identity = new WatchedFile(
    join(dir, 'identity-token'),
    (text) => {
      if (!text) throw new ConfigError('identity-token is empty');
      return text;
    },
    recheckMs,
    now,
  );
  const keys = new WatchedFile(join(dir, 'command-key'), parseCommandKeys, recheckMs, now);
  return { identityToken: () => identity.get(), commandKeys: () => keys.get() };
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    throw new ConfigError(`the worker cannot read its secret file ${path}`);
  }
}

/** Where the file's content lives now (the kubelet swaps a link, so the inode changes with the content). */
function stampOf(path: string): string {
  const stat = statSync(path);
  return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
}
