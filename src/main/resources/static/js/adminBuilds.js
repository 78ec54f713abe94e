// The admin page's "Builds and cut-over" section: per tenant-environment whether it is offered to users
// (its cut-over gate), the newest verification and what failed, a button to verify now, and its recent
// builds with state and duration (docs/builds.md).
import {api, listOf} from './api.js';
import {fill, h, when} from './dom.js';

export async function buildsAndGates(table, tenantEnvs) {
  const body = table.tBodies[0];
  if (tenantEnvs.length === 0) {
    fill(body, h('tr', {}, h('td', {colspan: 4, class: 'muted'}, 'None yet.')));
    return;
  }
  const rows = await Promise.all(tenantEnvs.map(({tenant, env}) => rowFor(tenant, env, table)));
  fill(body, ...rows);
}

async function rowFor(tenant, env, table) {
  const base = `/api/admin/tenant-environments/${encodeURIComponent(tenant)}/${encodeURIComponent(env)}`;
  let gate;
  let builds;
  try {
    [gate, builds] = await Promise.all([api(`${base}/cutover`), api(`${base}/builds?limit=5`)]);
  } catch (error) {
    return h('tr', {}, h('th', {scope: 'row'}, `${tenant}/${env}`), h('td', {colspan: 3, class: 'error'}, error.message));
  }
  const latest = (gate.verifications || [])[0];
  const verify = h('button', {type: 'button', class: 'secondary', onclick: async () => {
    verify.disabled = true;
    try {
      await api(`${base}/cutover/verifications`, {method: 'POST', body: {}});
    } finally {
      verify.disabled = false;
    }
    const fresh = await rowFor(tenant, env, table);
    const current = [...table.tBodies[0].rows].find((r) => r.dataset.te === `${tenant}/${env}`);
    if (current) current.replaceWith(fresh);
  }}, 'Verify now');
  const tr = h('tr', {},
    h('th', {scope: 'row'}, `${tenant}/${env}`),
    h('td', {}, h('span', {class: `pill pill-${gate.offered ? 'ready' : 'unavailable'}`}, gate.offered ? 'offered' : 'not offered')),
    h('td', {},
      latest ? h('span', {class: `pill pill-${latest.outcome.toLowerCase()}`}, latest.outcome.toLowerCase()) : h('span', {class: 'muted'}, 'never verified'),
      latest ? h('span', {class: 'muted small'}, ` ${when(latest.finishedAt || latest.startedAt)}${latest.detail ? ` · ${latest.detail}` : ''}`) : null,
      ' ', verify),
    h('td', {}, buildList(listOf(builds))));
  tr.dataset.te = `${tenant}/${env}`;
  return tr;
}

function buildList(builds) {
  if (builds.length === 0) return h('span', {class: 'muted'}, 'No builds.');
  return h('ul', {class: 'builds'}, ...builds.map((b) => h('li', {},
    h('span', {class: `pill pill-${b.state}`}, b.state), ' ',
    `${b.kind} ${b.kind === 'gradle' ? b.tasks.join(' ') : b.destination || ''}`,
    h('span', {class: 'muted small'}, ` ${b.durationMs == null ? '' : `${(b.durationMs / 1000).toFixed(1)} s · `}${when(b.createdAt)}${b.reason ? ` · ${b.reason}` : ''}`))));
}
