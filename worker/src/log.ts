/**
 * One JSON object per line on stdout: what a pod's log collector reads. Secrets never reach here; callers
 * log ids and reasons, never tokens or keys.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';

const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold: Level = (process.env.TALKIDE_WORKER_LOG_LEVEL as Level | undefined) ?? 'info';

export function setLogLevel(level: Level): void {
  threshold = level;
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function logger(name: string): Logger {
  const write = (level: Level, message: string, fields?: Record<string, unknown>) => {
    if (order[level] < (order[threshold] ?? 20)) {
      return;
    }
    const line = JSON.stringify({ time: new Date().toISOString(), level, logger: name, message, ...fields });
    process.stdout.write(`${line}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
