// One conversation on screen: its last turns (GET …/history), then at once the live stream after them (a
// native EventSource, which resumes after the last event id it saw); earlier turns page in above as the
// reader scrolls up, and pages far above are dropped again when the reader is back at the end, so a long
// conversation is never all in the DOM. The composer and the interrupt button.
import {api, listOf} from './api.js';
import {fill, h, when} from './dom.js';
import {BuildLogs} from './buildLog.js';
import {Transcript} from './transcript.js';
import {workerStatus} from './words.js';

const EVENT_TYPES = ['message.accepted', 'turn.started', 'text.delta', 'tool.started', 'tool.completed',
  'text.block', 'tool.block', 'turn.completed', 'turn.failed', 'session.status', 'worker.status'];
const PAGE = 500;
const RETRY_MS = 3000;
const TURNS_PER_PAGE = 10;
/** Pages of turns kept on the page; the earliest go once the reader is back at the end. */
const MAX_PAGES = 4;
/** Within this many pixels of the end the view follows the answer as it grows. */
const NEAR_END_PX = 120;

export class ConversationView {
  constructor(container, conversation, {onTurnEnd = () => {}} = {}) {
    this.conversation = conversation;
    this.base = `/api/conversations/${encodeURIComponent(conversation.id)}`;
    this.lastSeq = 0;
    this.source = null;
    this.retryTimer = null;
    this.closed = false;
    this.onTurnEnd = onTurnEnd;
    this.before = null; // where the earliest page shown starts; null: at the beginning
    this.pages = []; // earlier pages shown, earliest first: {start, nodes}
    this.loadingEarlier = false;
    this.followEnd = true;
    this.scrollFrame = 0;
    this.render(container);
    this.buildLogs = new BuildLogs(this.base);
    this.transcript = new Transcript(this.transcriptList, () => this.updateControls(), this.buildLogs);
    this.onScroll = () => this.scrolled();
    window.addEventListener('scroll', this.onScroll, {passive: true});
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) this.loadEarlier();
    }, {rootMargin: '300px 0px 0px 0px'});
    this.observer.observe(this.earlierButton);
  }

  render(container) {
    const c = this.conversation;
    this.connection = h('span', {class: 'connection', id: 'connection', role: 'status'}, 'Loading…');
    this.banner = h('p', {class: 'banner', id: 'worker-banner', role: 'status', hidden: true});
    this.earlierButton = h('button', {type: 'button', id: 'earlier-button', class: 'secondary earlier', hidden: true,
      onclick: () => this.loadEarlier()}, 'Show earlier turns');
    this.transcriptList = h('ol', {class: 'transcript', id: 'transcript', 'aria-live': 'polite', 'aria-label': 'Conversation'});
    this.input = h('textarea', {id: 'message-input', name: 'text', rows: 3, required: true,
      placeholder: 'Ask Mara… (Enter sends, Shift+Enter starts a new line)'});
    this.sendButton = h('button', {type: 'submit', id: 'send-button'}, 'Send');
    this.interruptButton = h('button', {type: 'button', id: 'interrupt-button', class: 'secondary', disabled: true,
      onclick: () => this.interrupt()}, 'Stop answer');
    this.formError = h('p', {class: 'error', id: 'send-error', role: 'alert', hidden: true});
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.form.requestSubmit();
      }
    });
    this.form = h('form', {class: 'composer', onsubmit: (event) => { event.preventDefault(); this.send(); }},
      h('label', {for: 'message-input', class: 'visually-hidden'}, 'Message'),
      this.input,
      h('div', {class: 'composer-actions'}, this.interruptButton, this.sendButton),
      this.formError);
    fill(container,
      h('header', {class: 'conversation-head'},
        h('div', {},
          h('h2', {id: 'conversation-title', tabindex: -1}, c.title || 'Untitled conversation'),
          h('p', {class: 'muted small'}, `${c.tenant || ''}/${c.env || ''} · started ${when(c.createdAt)}`)),
        this.connection),
      this.banner,
      this.earlierButton,
      this.transcriptList,
      this.form);
  }

  async open() {
    try {
      await this.loadLastTurns();
    } catch (error) {
      this.setConnection(`History unavailable: ${error.message}`, 'down');
    }
    this.connect();
    this.input.focus();
    this.scrollToEnd();
  }

  /** The last turns, whole; the stream then goes live right after them. */
  async loadLastTurns() {
    const page = await api(`${this.base}/history?turns=${TURNS_PER_PAGE}`);
    for (const event of listOf(page, 'events')) this.apply(event.type, event.data, Number(event.seq), false);
    const cursor = Number(page?.cursor);
    if (Number.isFinite(cursor) && cursor > this.lastSeq) this.lastSeq = cursor;
    this.setBefore(page?.before);
  }

  /** The turns before the earliest shown, put above them without moving what the reader looks at. */
  async loadEarlier() {
    if (this.loadingEarlier || this.before === null || this.closed) return;
    this.loadingEarlier = true;
    try {
      const page = await api(`${this.base}/history?turns=${TURNS_PER_PAGE}&before=${this.before}`);
      const fragment = document.createDocumentFragment();
      this.transcript.buildEarlier(fragment, () => {
        for (const event of listOf(page, 'events')) this.transcript.apply(event.type, parseData(event.data));
      });
      const nodes = [...fragment.childNodes];
      const anchor = this.transcriptList.firstElementChild;
      const top = anchor ? anchor.getBoundingClientRect().top : 0;
      this.transcriptList.prepend(fragment);
      // Browsers with scroll anchoring have kept the view already; this covers the others.
      const moved = anchor ? anchor.getBoundingClientRect().top - top : 0;
      if (moved) window.scrollBy(0, moved);
      this.setBefore(page?.before);
      this.pages.unshift({start: this.before, nodes});
    } catch (error) {
      this.setConnection(`Earlier turns unavailable: ${error.message}`, 'down');
    } finally {
      this.loadingEarlier = false;
    }
  }

  setBefore(before) {
    const n = Number(before);
    this.before = before === null || before === undefined || !Number.isFinite(n) ? null : n;
    this.earlierButton.hidden = this.before === null;
  }

  /** Back at the end: take out the earliest pages beyond the last few; scrolling up brings them back. */
  dropEarlyPages() {
    if (this.pages.length <= MAX_PAGES) return;
    const dropped = this.pages.splice(0, this.pages.length - MAX_PAGES);
    for (const page of dropped) for (const node of page.nodes) node.remove();
    this.transcript.forgetDetached();
    this.setBefore(this.pages[0].start);
  }

  scrolled() {
    const root = document.scrollingElement || document.documentElement;
    this.followEnd = root.scrollTop + window.innerHeight >= root.scrollHeight - NEAR_END_PX;
    if (this.followEnd) this.dropEarlyPages();
  }

  /** Catches up from the event log after the stream failed (also signs in again if the session ended). */
  async catchUp() {
    for (;;) {
      const answer = await api(`${this.base}/events?after=${this.lastSeq}&limit=${PAGE}`);
      const page = listOf(answer, 'events');
      for (const event of page) this.apply(event.type, event.data, Number(event.seq), false);
      const more = answer && typeof answer.hasMore === 'boolean' ? answer.hasMore : page.length === PAGE;
      if (!more || page.length === 0) return;
    }
  }

  connect() {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    // First connect names the resume point in the query; EventSource's own reconnects send Last-Event-ID.
    const source = new EventSource(`${this.base}/stream?lastEventId=${this.lastSeq}`);
    this.source = source;
    source.onopen = () => this.setConnection('Live', 'live');
    source.onerror = () => {
      if (this.closed || source !== this.source) return;
      if (source.readyState === EventSource.CLOSED) {
        // The server refused the stream (signed out, gone) or it failed hard: start over ourselves.
        this.setConnection('Connection lost. Reconnecting…', 'down');
        this.retryTimer = setTimeout(() => this.reconnect(), RETRY_MS);
      } else {
        this.setConnection('Connection lost. Reconnecting…', 'down');
      }
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (event) => this.onStreamEvent(type, event));
    }
  }

  async reconnect() {
    if (this.closed) return;
    try {
      await this.catchUp(); // and signs in again if the session has ended
    } catch {
      // the stream below reports the state
    }
    this.connect();
  }

  onStreamEvent(type, event) {
    if (this.connection.dataset.state !== 'live') this.setConnection('Live', 'live');
    this.apply(type, event.data, Number(event.lastEventId), true);
  }

  apply(type, rawData, seq, live) {
    if (Number.isFinite(seq) && seq > 0) {
      if (seq <= this.lastSeq) return; // replayed after a reconnect: already shown
      this.lastSeq = seq;
    }
    const data = parseData(rawData);
    if (type === 'worker.status') {
      const words = workerStatus(data);
      this.banner.hidden = !words;
      this.banner.textContent = words || '';
      return;
    }
    // Every end the page receives, from history too: a turn that ended while the page was reloading or
    // reconnecting arrives that way, and the budget bar may still show its reservation.
    if (this.transcript.apply(type, data)) this.onTurnEnd(type, data, live);
  }

  async send() {
    const text = this.input.value.trim();
    if (!text) return;
    this.formError.hidden = true;
    const clientMessageId = newId();
    const pending = this.transcript.pendingMessage(clientMessageId, text);
    this.input.value = '';
    try {
      await api(`${this.base}/messages`, {method: 'POST', body: {text, clientMessageId}});
    } catch (error) {
      pending.fail(error.message);
      this.input.value = this.input.value || text;
      this.showFormError(error.message);
    }
    this.updateControls();
  }

  async interrupt() {
    this.keepFocusFromDisabledButton();
    this.interruptButton.disabled = true;
    try {
      await api(`${this.base}/interrupt`, {method: 'POST'});
      this.interruptButton.textContent = 'Stopping…';
    } catch (error) {
      this.showFormError(`Could not stop the answer: ${error.message}`);
      this.updateControls();
    }
  }

  updateControls() {
    const busy = this.transcript.busy();
    if (!busy) this.keepFocusFromDisabledButton();
    this.interruptButton.disabled = !busy;
    if (!busy) this.interruptButton.textContent = 'Stop answer';
    if (this.followEnd) this.scrollToEnd();
  }

  /** Once per frame however many deltas arrived in it: a delta itself only touches its text node. */
  scrollToEnd() {
    if (this.scrollFrame) return;
    this.scrollFrame = requestAnimationFrame(() => {
      this.scrollFrame = 0;
      this.transcriptList.lastElementChild?.scrollIntoView({block: 'end'});
    });
  }

  /**
   * A focused button that gets disabled drops the focus on the page's body, and a keyboard user has to
   * find their place again: move it to the message box, where the next thing to do is.
   */
  keepFocusFromDisabledButton() {
    if (document.activeElement === this.interruptButton) this.input.focus();
  }

  showFormError(message) {
    this.formError.textContent = message;
    this.formError.hidden = false;
  }

  setConnection(text, state) {
    this.connection.textContent = text;
    this.connection.dataset.state = state;
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    window.removeEventListener('scroll', this.onScroll);
    this.observer.disconnect();
    if (this.source) this.source.close();
    this.buildLogs.close();
  }
}

function parseData(raw) {
  let data = raw;
  if (typeof data === 'string') {
    try { data = JSON.parse(data); } catch { data = {}; }
  }
  return data && typeof data === 'object' ? data : {};
}

/** A random UUID, also where crypto.randomUUID is missing (pages served over plain HTTP to another host). */
function newId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

