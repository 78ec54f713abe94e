import { ConfigError, loadConfig } from './config.js';
import { logger } from './log.js';
import { Worker } from './worker.js';

const log = logger('main');

/** Starts the worker from its environment; SIGTERM/SIGINT stop it gracefully (docs/worker-contract.md). */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      log.error(`cannot start: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  const worker = await Worker.start(config);
  const stop = (signal: string) => {
    log.info('stopping', { signal });
    worker.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((e: unknown) => {
  log.error('worker failed', { error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
});
