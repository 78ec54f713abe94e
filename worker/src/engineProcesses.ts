import { type ChildProcess, spawn } from 'node:child_process';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';

/**
 * The engine processes this worker started. The SDK closes an engine by ending its input and signalling
 * it a little later, but it does not wait: a worker that exited at once left its engines running as
 * orphans, still writing their session transcript to the volume. The worker spawns every engine here
 * (the SDK's `spawnClaudeCodeProcess`), so its stop can wait until they have all exited.
 */
export class EngineProcesses {
  private readonly running = new Set<ChildProcess>();

  /** Starts an engine as the SDK would; its diagnostics are not read (failures come back as results). */
  readonly spawn = (options: SpawnOptions): SpawnedProcess => {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      signal: options.signal,
      stdio: ['pipe', 'pipe', 'ignore'],
      windowsHide: true,
    });
    this.running.add(child);
    child.once('exit', () => this.running.delete(child));
    // A spawn that fails never exits; the SDK reports the error itself.
    child.once('error', () => {
      if (child.pid === undefined) this.running.delete(child);
    });
    return child;
  };

  count(): number {
    return this.running.size;
  }

  /**
   * Resolves once every engine has exited. Engines still running after `timeoutMs` are killed, so a
   * stop is bounded (a pod's termination grace is 30 s).
   */
  async exited(timeoutMs: number): Promise<void> {
    const waiting = [...this.running].map(
      (child) =>
        new Promise<void>((resolve) =>
          this.running.has(child) ? child.once('exit', () => resolve()) : resolve(),
        ),
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timeoutMs);
    });
    if ((await Promise.race([Promise.all(waiting), late])) === 'late') {
      for (const child of this.running) child.kill('SIGKILL');
      await Promise.all(waiting);
    }
    clearTimeout(timer);
  }
}
