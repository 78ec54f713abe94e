// The admin page: tenant-environments and their workers, their cut-over gates and builds, users' limits
// (editable), usage by model and the issues workers reported. Every call needs the ADMIN role; the server enforces it.
import {buildsAndGates} from './adminBuilds.js';
import {api, listOf} from './api.js';
import {byId, dollars, fill, h, when} from './dom.js';
import {header, showError} from './session.js';
import {readiness, tenantEnv} from './words.js';

const shownUsers = new Set();

async function start() {
  let me;
  try {
    me = await header();
  } catch (error) {
    showError(byId('page-error'), error.message);
    return;
  }
  if (!me.admin) {
    showError(byId('page-error'), 'This page is for administrators. Your account does not have the ADMIN role.');
    return;
  }
  byId('find-user').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = byId('find-user-id');
    showBudget(input.value.trim()).then(() => { input.value = ''; });
  });
  await Promise.all([tenantEnvs(), usage(me.userId), issues()]);
}

async function tenantEnvs() {
  const body = byId('tenant-envs').tBodies[0];
  try {
    const list = listOf(await api('/api/admin/tenant-environments'));
    buildsAndGates(byId('builds-gates'), list.map(tenantEnv));
    const workers = await workersVisibleToMe();
    fill(body, list.length === 0 ? row(h('td', {colspan: 4, class: 'muted'}, 'None yet.')) : list.map((entry) => {
      const {tenant, env} = tenantEnv(entry);
      const mine = workers.get(`${tenant}/${env}`) || {};
      const worker = readiness(entry) || readiness(mine);
      const detail = entry.workerDetail || mine.workerDetail;
      return row(
        h('th', {scope: 'row'}, `${tenant}/${env}`),
        h('td', {}, h('span', {class: `pill pill-${String(entry.status || '').toLowerCase()}`}, String(entry.status || '?')),
          entry.statusReason ? h('span', {class: 'muted small'}, ` ${entry.statusReason}`) : null),
        h('td', {}, worker ? h('span', {class: `pill pill-${worker}`}, worker) : '—',
          detail ? h('span', {class: 'muted small'}, ` ${detail}`) : null),
        h('td', {}, when(entry.updatedAt)));
    }));
  } catch (error) {
    fill(body, row(h('td', {colspan: 4, class: 'error'}, error.message)));
  }
}

/** Worker readiness of the tenant-environments the admin belongs to, by "tenant/env" (the admin list may lack it). */
async function workersVisibleToMe() {
  try {
    const mine = listOf(await api('/api/me/tenant-environments'), 'tenantEnvironments');
    return new Map(mine.map((entry) => {
      const {tenant, env} = tenantEnv(entry);
      return [`${tenant}/${env}`, entry];
    }));
  } catch {
    return new Map();
  }
}

async function usage(selfId) {
  const body = byId('usage').tBodies[0];
  try {
    const byModel = await api('/api/admin/usage?groupBy=model');
    const groups = listOf(byModel, 'groups');
    fill(body, groups.length === 0 ? row(h('td', {colspan: 5, class: 'muted'}, 'No calls this period.')) : groups.map((g) => row(
      h('th', {scope: 'row'}, g.key),
      h('td', {}, g.calls),
      h('td', {}, g.inputTokens + g.cacheWrite5mTokens + g.cacheWrite1hTokens + g.cacheReadTokens),
      h('td', {}, g.outputTokens),
      h('td', {}, dollars(g.costMicros)))));
    const byUser = listOf(await api('/api/admin/usage?groupBy=user'), 'groups');
    const users = new Set([selfId, ...byUser.map((g) => g.key)]);
    for (const user of users) await showBudget(user);
  } catch (error) {
    fill(body, row(h('td', {colspan: 5, class: 'error'}, error.message)));
  }
}

async function showBudget(userId) {
  if (!userId) return;
  const message = byId('budget-message');
  let status;
  try {
    status = await api(`/api/admin/budgets/${encodeURIComponent(userId)}`);
  } catch (error) {
    message.textContent = `${userId}: ${error.message}`;
    message.hidden = false;
    return;
  }
  const limitInput = h('input', {type: 'number', min: 0, step: '0.000001', value: status.limitMicros / 1e6,
    id: `limit-${userId}`, class: 'limit-input', 'aria-label': `Limit for ${userId} in US dollars`});
  const saveButton = h('button', {type: 'submit', class: 'save-limit'}, 'Save');
  const form = h('form', {class: 'limit-form', onsubmit: (event) => {
    event.preventDefault();
    saveLimit(status, limitInput.value, saveButton);
  }}, limitInput, saveButton);
  const tr = row(
    h('th', {scope: 'row'}, status.userId),
    h('td', {}, dollars(status.spentMicros)),
    h('td', {}, dollars(status.reservedMicros)),
    h('td', {colspan: 2}, form));
  tr.dataset.user = status.userId;
  const body = byId('budgets').tBodies[0];
  const existing = [...body.rows].find((r) => r.dataset.user === status.userId);
  if (existing) existing.replaceWith(tr); else body.append(tr);
  shownUsers.add(status.userId);
}

async function saveLimit(status, dollarsText, button) {
  const message = byId('budget-message');
  const value = Number(dollarsText);
  if (dollarsText === '' || !Number.isFinite(value) || value < 0) {
    message.textContent = 'Enter a limit in US dollars, 0 or more.';
    message.hidden = false;
    return;
  }
  button.disabled = true;
  try {
    // PUT replaces all the user's overrides: keep the others as they are.
    const settings = {...(status.settings || {}), limitMicros: Math.round(value * 1e6)};
    const saved = await api(`/api/admin/budgets/${encodeURIComponent(status.userId)}`, {method: 'PUT', body: settings});
    message.textContent = `Saved: ${saved.userId} may spend ${dollars(saved.limitMicros)} this period.`;
    message.hidden = false;
    await showBudget(saved.userId);
  } catch (error) {
    message.textContent = `Not saved: ${error.message}`;
    message.hidden = false;
    button.disabled = false;
  }
}

async function issues() {
  const list = byId('issues');
  try {
    const reports = listOf(await api('/api/admin/reports?kind=issues&limit=100'));
    fill(list, reports.length === 0 ? h('li', {class: 'muted'}, 'No issues reported.') : reports.reverse().map((r) => {
      const report = r.report || {};
      return h('li', {class: 'issue'},
        h('div', {class: 'issue-head'},
          h('span', {class: `pill pill-${String(report.severity || '').toLowerCase()}`}, String(report.severity || 'issue')),
          ' ', h('strong', {}, String(report.title || '(no title)'))),
        h('p', {class: 'muted small'}, `${r.tenant}/${r.env} · ${r.userId} · conversation ${r.conversationId} · ${when(r.receivedAt)}`),
        report.body ? h('p', {class: 'issue-body'}, String(report.body)) : null);
    }));
  } catch (error) {
    fill(list, h('li', {class: 'error'}, error.message));
  }
}

function row(...cells) {
  return h('tr', {}, ...cells);
}

start();
