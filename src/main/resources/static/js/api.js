// The console's one door to the server: same-origin fetch with the session cookie, the CSRF token on
// writes, and every error turned into an ApiError whose message a person can read.

export class ApiError extends Error {
  constructor(status, title, detail, problem) {
    super(detail || title || `The server answered ${status}.`);
    this.status = status;
    this.title = title;
    this.problem = problem;
  }
}

/** The CSRF token Spring Security keeps in the XSRF-TOKEN cookie, echoed as a header on writes. */
export function csrfToken() {
  const cookie = document.cookie.split('; ').find((part) => part.startsWith('XSRF-TOKEN='));
  return cookie ? decodeURIComponent(cookie.slice('XSRF-TOKEN='.length)) : '';
}

export async function api(path, {method = 'GET', body, signal} = {}) {
  const headers = {Accept: 'application/json'};
  if (method !== 'GET' && method !== 'HEAD') headers['X-XSRF-TOKEN'] = csrfToken();
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method, headers, signal, credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, 'No connection', 'The server cannot be reached. Check your connection; the page retries by itself.');
  }
  if (response.status === 401) {
    // The session ended (or never began): sign in again, then come back here.
    location.assign('/login?next=' + encodeURIComponent(location.pathname + location.search));
    throw new ApiError(401, 'Signed out', 'Your session has ended. Please sign in again.');
  }
  const text = await response.text();
  let json = null;
  if (text) {
    try { json = JSON.parse(text); } catch { json = null; }
  }
  if (!response.ok) throw problemError(response.status, json);
  return json;
}

function problemError(status, problem) {
  const title = problem && typeof problem.title === 'string' ? problem.title : '';
  const detail = problem && typeof problem.detail === 'string' ? problem.detail : '';
  if (status === 403) {
    return new ApiError(status, title, detail || 'You are not allowed to do this.', problem);
  }
  if (status === 404) {
    return new ApiError(status, title, detail || 'It does not exist, or it is not yours.', problem);
  }
  if (status === 429) {
    return new ApiError(status, title, detail || 'Too many requests or your budget is spent. Try again later.', problem);
  }
  if (status >= 500) {
    const id = problem && problem.errorId ? ` (error id ${problem.errorId})` : '';
    return new ApiError(status, title, (detail || 'The server had a problem. Try again in a moment.') + id, problem);
  }
  return new ApiError(status, title, detail || title || `The request was refused (${status}).`, problem);
}

/** A list from an answer that is either an array or an object holding one under a usual name. */
export function listOf(answer, ...names) {
  if (Array.isArray(answer)) return answer;
  for (const name of [...names, 'items', 'content', 'events', 'conversations']) {
    if (answer && Array.isArray(answer[name])) return answer[name];
  }
  return [];
}
