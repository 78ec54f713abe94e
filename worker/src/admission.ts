/**
 * Admission: at most `max` turns run at once, each on its own engine (a process of about 200 MB; the
 * pod's memory limit is sized for `TALKIDE_WORKER_MAX_ENGINES` of them). A message that would start one
 * more is not accepted: the worker answers 429 `worker-busy` with `Retry-After`, the control plane keeps
 * it queued and tells the user so, and delivers it again later. Nothing is started that the pod cannot
 * hold, so a busy tenant-environment waits instead of being OOM-killed.
 */
export class EngineSlots {
  private running = 0;

  constructor(readonly max: number) {}

  tryTake(): boolean {
    if (this.running >= this.max) {
      return false;
    }
    this.running++;
    return true;
  }

  release(): void {
    this.running = Math.max(0, this.running - 1);
  }

  inUse(): number {
    return this.running;
  }
}

/** Seconds a refused message should wait before it is delivered again. */
export const BUSY_RETRY_AFTER_SECONDS = 2;
