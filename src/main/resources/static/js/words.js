// What the event log's codes mean to the person reading the conversation.

/** The error of a turn.failed event in plain words: {headline, detail, kind}. */
export function turnFailure(data) {
  const error = data && typeof data.error === 'object' && data.error ? data.error : {};
  const type = error.type || data.reason || (typeof data.error === 'string' ? data.error : '') || 'unknown';
  const message = typeof error.message === 'string' ? error.message : (data.message || '');
  switch (type) {
    case 'budget_exceeded':
      return {kind: 'budget', headline: 'Your budget for this period is spent.',
        detail: 'What is left is less than an answer may cost, so Mara cannot answer until your limit is raised'
          + ' or the period ends. Ask an administrator to raise it.'};
    case 'interrupted':
      return {kind: 'interrupted', headline: 'Stopped.', detail: 'You interrupted this answer.'};
    case 'worker_restarted':
      return {kind: 'worker', headline: 'Mara’s workspace restarted during this answer.',
        detail: 'The answer was lost. Send your message again.'};
    case 'worker_unavailable':
    case 'worker_unreachable':
      return {kind: 'worker', headline: 'Mara’s workspace is not available.', detail: message};
    case 'message_rejected':
      return {kind: 'error', headline: 'This message could not be taken.', detail: message};
    case 'upstream_error':
      if (/overloaded|529/i.test(message)) {
        return {kind: 'upstream', headline: 'The AI model is overloaded right now.',
          detail: 'This is temporary. Wait a moment and send your message again.'};
      }
      return {kind: 'upstream', headline: 'The AI model could not answer.',
        detail: message ? `It said: ${message}` : 'Try again in a moment.'};
    default:
      return {kind: 'error', headline: 'The answer failed.', detail: message || `Reason: ${type}.`};
  }
}

/** A worker.status event in plain words, or null when all is well again. */
export function workerStatus(data) {
  const detail = data && typeof data.detail === 'string' ? data.detail : '';
  switch (data && data.status) {
    case 'starting':
      return 'Mara’s workspace is starting. Your message will be delivered as soon as it is ready.';
    case 'unavailable':
      return 'Mara’s workspace is unavailable right now. Your message is kept and will be delivered when it is back.';
    case 'unreachable':
      return 'Mara’s workspace cannot be reached right now. The console keeps trying.' + (detail ? ` (${detail})` : '');
    case 'busy':
      return 'Mara is busy with other conversations. Your message is queued and will start as soon as she is free.';
    case 'handover':
      return 'Mara’s workspace is moving to a new version; the previous one is still finishing this conversation’s'
        + ' work. Your message is kept and will be delivered as soon as it lets go.';
    case 'ready':
      return null;
    default:
      return detail || null;
  }
}

/** A tenant-environment's or worker's readiness for a chooser, e.g. "ready", "starting". */
export function readiness(entry) {
  const worker = entry.worker && typeof entry.worker === 'object' ? entry.worker : {};
  const value = worker.status || worker.readiness || entry.workerStatus || entry.workerReadiness
    || (typeof entry.workerReady === 'boolean' ? (entry.workerReady ? 'ready' : 'not ready') : '')
    || (typeof entry.worker === 'string' ? entry.worker : '');
  return String(value || '').toLowerCase();
}

/** tenant and env of an entry shaped {tenant, env} or {id: {tenant, env}}. */
export function tenantEnv(entry) {
  const id = entry && entry.id && typeof entry.id === 'object' ? entry.id : entry || {};
  return {tenant: id.tenant || entry.tenant, env: id.env || entry.env};
}
