// A run_build tool card's live build log. The tool's events carry no build id while it runs (the build
// is requested from inside the tool), so a running card takes the conversation's oldest unfinished build
// no other card has taken; once the tool completed, its output names the build ("Build <id> …"), which
// corrects the match and is how cards from history find theirs. The log comes from
// GET …/builds/{id}/logs (SSE: line events, then one end event); EventSource resumes by line id.
import {api} from './api.js';
import {h} from './dom.js';

const SHOWN_LINES = 400;
const FIND_EVERY_MS = 1000;
const BUILD_ID = /Build ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/;

export class BuildLogs {
  constructor(base) {
    this.base = base;
    this.taken = new Set();
    this.views = new Set();
  }

  static isBuildTool(name) {
    return /(^|__)run_build$/.test(String(name ?? ''));
  }

  /** A log view inside {@code toolElement}; {@code live}: the tool runs now, so look for its build. */
  attach(toolElement, live) {
    const view = new BuildLogView(this, toolElement);
    this.views.add(view);
    if (live) view.find();
    return view;
  }

  close() {
    for (const view of this.views) view.stop();
    this.views.clear();
  }
}

class BuildLogView {
  constructor(logs, toolElement) {
    this.logs = logs;
    this.buildId = null;
    this.source = null;
    this.timer = 0;
    this.done = false;
    this.state = h('span', {class: 'build-log-state'}, 'waiting for the build…');
    this.lines = h('pre', {class: 'build-log-lines'});
    this.element = h('div', {class: 'build-log'},
      h('div', {class: 'build-log-head'}, h('span', {class: 'tool-label'}, 'Build log'), ' ', this.state),
      this.lines);
    toolElement.append(this.element);
  }

  async find() {
    if (this.done || this.buildId || !this.logs.views.has(this)) return;
    try {
      const builds = await api(`${this.logs.base}/builds?limit=20`);
      const candidate = [...builds].reverse()
        .find((b) => (b.state === 'queued' || b.state === 'running') && !this.logs.taken.has(b.id));
      if (candidate && !this.done && !this.buildId) {
        this.follow(candidate.id);
        return;
      }
    } catch {
      // Retried below: the page's own stream reports a lost connection.
    }
    if (!this.done && !this.buildId) this.timer = setTimeout(() => this.find(), FIND_EVERY_MS);
  }

  /** The tool ended: its output names the build; follow that one if it is not the one shown. */
  completed(output) {
    this.done = true;
    clearTimeout(this.timer);
    const match = BUILD_ID.exec(typeof output === 'string' ? output : JSON.stringify(output ?? ''));
    if (match && match[1] !== this.buildId) {
      this.stop();
      this.lines.textContent = '';
      this.follow(match[1]);
    } else if (!match && !this.buildId) {
      this.element.hidden = true; // the build never started; the output says why
    }
  }

  follow(buildId) {
    this.buildId = buildId;
    this.logs.taken.add(buildId);
    this.element.dataset.buildId = buildId;
    this.state.textContent = 'running…';
    const source = new EventSource(`${this.logs.base}/builds/${encodeURIComponent(buildId)}/logs`);
    this.source = source;
    source.addEventListener('line', (event) => this.line(event.data));
    source.addEventListener('end', (event) => {
      source.close();
      let end = {};
      try { end = JSON.parse(event.data); } catch { /* shown as ended */ }
      this.element.dataset.state = end.state ?? 'ended';
      this.state.textContent = end.state ?? 'ended';
    });
    source.onerror = () => {
      // A 404 or a refused connection closes it for good; a cut connection is resumed by EventSource.
      if (source.readyState === EventSource.CLOSED && this.element.dataset.state === undefined) {
        this.state.textContent = 'log unavailable';
      }
    };
  }

  line(text) {
    this.lines.append(`${text}\n`);
    while (this.lines.childNodes.length > SHOWN_LINES) this.lines.firstChild.remove();
    this.lines.scrollTop = this.lines.scrollHeight;
  }

  stop() {
    clearTimeout(this.timer);
    if (this.source) this.source.close();
    this.source = null;
  }
}
