// The budget bar: what the signed-in user has spent and has reserved by answers still running, against
// the period's limit, and when the period ends.
import {api} from './api.js';
import {dollars, fill, h, when} from './dom.js';

// A call's usage is committed before its last bytes, but a replica's budget lease stays reserved until it
// is given back (idle time, 2 s by default): after a turn ends, look again a few times while some is held.
const SETTLE_CHECKS_MS = [0, 1000, 2000, 4000, 8000];

export class BudgetBar {
  constructor(element) {
    this.element = element;
    this.status = null;
    this.settleTimer = null;
  }

  /**
   * A turn ended (live or caught up from history): refresh now, and again while a reservation is still
   * held, until it is gone or the checks run out. Many ends at once (a history page) cost one check.
   */
  afterTurn() {
    clearTimeout(this.settleTimer);
    const check = (attempt) => {
      this.settleTimer = setTimeout(async () => {
        const status = await this.refresh();
        const held = status !== null && Number(status.reservedMicros) > 0;
        if (held && attempt + 1 < SETTLE_CHECKS_MS.length) check(attempt + 1);
      }, SETTLE_CHECKS_MS[attempt]);
    };
    check(0);
  }

  async refresh() {
    try {
      this.status = await api('/api/me/usage');
      this.render();
    } catch (error) {
      fill(this.element, h('p', {class: 'muted'}, `Budget unavailable: ${error.message}`));
    }
    return this.status;
  }

  /** True when nothing is left to spend this period. */
  get spent() {
    return this.status !== null && this.status.remainingMicros <= 0;
  }

  render() {
    const s = this.status;
    const limit = Math.max(0, Number(s.limitMicros) || 0);
    const spentShare = limit > 0 ? Math.min(1, s.spentMicros / limit) : 1;
    const reservedShare = limit > 0 ? Math.min(1 - spentShare, s.reservedMicros / limit) : 0;
    const spentPart = h('span', {class: 'bar-spent'});
    const reservedPart = h('span', {class: 'bar-reserved'});
    // CSSOM, not a style attribute: the content security policy allows no inline styles.
    spentPart.style.width = `${(spentShare * 100).toFixed(1)}%`;
    reservedPart.style.width = `${(reservedShare * 100).toFixed(1)}%`;
    const summary = `${dollars(s.spentMicros)} spent, ${dollars(s.reservedMicros)} reserved of ${dollars(limit)}`;
    fill(this.element,
      h('div', {class: 'budget-head'},
        h('strong', {}, 'Budget'),
        h('span', {id: 'budget-summary'}, summary)),
      h('div', {
        class: 'bar' + (this.spent ? ' bar-full' : ''), role: 'meter', 'aria-label': 'Budget used',
        'aria-valuemin': 0, 'aria-valuemax': limit, 'aria-valuenow': Math.min(limit, s.spentMicros + s.reservedMicros),
        'aria-valuetext': summary,
      }, spentPart, reservedPart),
      h('p', {class: 'muted small'},
        this.spent ? 'Nothing left this period. ' : `${dollars(s.remainingMicros)} left. `,
        `The period ends ${when(s.periodEnd)}.`));
  }
}
