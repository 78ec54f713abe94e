// The console page: choose a tenant-environment, list and start conversations, open one.
import {api, listOf} from './api.js';
import {BudgetBar} from './budget.js';
import {ConversationView} from './conversation.js';
import {byId, fill, h, when} from './dom.js';
import {header, showError} from './session.js';
import {readiness, tenantEnv} from './words.js';

const CHOSEN = 'talkide.tenantEnv';

const budget = new BudgetBar(byId('budget'));
let tenantEnvs = [];
let conversations = [];
let view = null;

async function start() {
  try {
    await header();
  } catch (error) {
    showError(byId('page-error'), error.message);
    return;
  }
  budget.refresh();
  setInterval(() => budget.refresh(), 30000);
  byId('tenant-env').addEventListener('change', () => {
    localStorage.setItem(CHOSEN, byId('tenant-env').value);
    renderConversations();
  });
  byId('new-conversation').addEventListener('submit', (event) => { event.preventDefault(); create(); });
  // Moves the focus itself: following the link would replace the #c=… that reopens the conversation on a
  // reload. With no conversation open, the place to start is the new conversation's title.
  byId('skip-link').addEventListener('click', (event) => {
    event.preventDefault();
    (byId('message-input') || byId('new-title')).focus();
  });
  window.addEventListener('hashchange', openFromHash);
  await loadTenantEnvs();
  await loadConversations();
  openFromHash();
}

async function loadTenantEnvs() {
  const select = byId('tenant-env');
  try {
    tenantEnvs = listOf(await api('/api/me/tenant-environments'), 'tenantEnvironments');
  } catch (error) {
    showError(byId('page-error'), `Your workspaces could not be loaded: ${error.message}`);
    return;
  }
  const saved = localStorage.getItem(CHOSEN);
  fill(select, tenantEnvs.map((entry) => {
    const {tenant, env} = tenantEnv(entry);
    const state = readiness(entry) || String(entry.status || '').toLowerCase();
    return h('option', {value: `${tenant}/${env}`, selected: `${tenant}/${env}` === saved},
      `${tenant}/${env}${state ? ` (${state})` : ''}`);
  }));
  if (tenantEnvs.length === 0) {
    showError(byId('page-error'), 'You are not a member of any tenant-environment yet. Ask an administrator to add you.');
  }
  byId('create-button').disabled = tenantEnvs.length === 0;
}

function chosen() {
  const [tenant, env] = (byId('tenant-env').value || '/').split('/');
  return {tenant, env};
}

async function loadConversations() {
  try {
    conversations = listOf(await api('/api/conversations?limit=200'), 'conversations');
  } catch (error) {
    showError(byId('page-error'), `Your conversations could not be loaded: ${error.message}`);
    conversations = [];
  }
  renderConversations();
}

function renderConversations() {
  const {tenant, env} = chosen();
  const shown = conversations.filter((c) => !c.tenant || (c.tenant === tenant && c.env === env));
  const current = view ? view.conversation.id : null;
  fill(byId('conversations'),
    shown.length === 0 ? h('li', {class: 'muted'}, 'No conversations yet.') : null,
    shown.map((c) => h('li', {},
      h('a', {href: `#c=${encodeURIComponent(c.id)}`, 'aria-current': c.id === current ? 'page' : null,
        class: 'conversation-link'},
        h('span', {class: 'conversation-name'}, c.title || 'Untitled conversation'),
        h('span', {class: 'muted small'}, when(c.createdAt))))));
}

async function create() {
  const titleInput = byId('new-title');
  const {tenant, env} = chosen();
  const title = titleInput.value.trim() || 'New conversation';
  const button = byId('create-button');
  button.disabled = true;
  try {
    const conversation = await api('/api/conversations', {method: 'POST', body: {tenant, env, title}});
    titleInput.value = '';
    conversations.unshift(conversation);
    location.hash = `c=${encodeURIComponent(conversation.id)}`;
    showError(byId('page-error'), '');
  } catch (error) {
    showError(byId('page-error'), `The conversation could not be created: ${error.message}`);
  } finally {
    button.disabled = false;
  }
}

async function openFromHash() {
  const match = /^#c=(.+)$/.exec(location.hash);
  if (!match) return;
  const id = decodeURIComponent(match[1]);
  if (view && view.conversation.id === id) return;
  if (view) view.close();
  view = null;
  let conversation = conversations.find((c) => c.id === id);
  try {
    conversation = await api(`/api/conversations/${encodeURIComponent(id)}`);
  } catch (error) {
    if (!conversation) {
      showError(byId('page-error'), `This conversation cannot be opened: ${error.message}`);
      return;
    }
  }
  if (conversation.tenant && chosen().tenant !== conversation.tenant) {
    byId('tenant-env').value = `${conversation.tenant}/${conversation.env}`;
  }
  view = new ConversationView(byId('conversation'), conversation, {onTurnEnd: () => budget.afterTurn()});
  renderConversations();
  await view.open();
}

start();
