// The page header shared by the console and the admin page: who is signed in, the admin link for
// administrators, and signing out.
import {api, csrfToken} from './api.js';
import {byId, h} from './dom.js';

/** Fills the header; resolves to {userId, admin}. */
export async function header() {
  const me = await api('/api/console/session');
  byId('user-name').textContent = me.userId;
  byId('admin-link').hidden = !me.admin;
  byId('sign-out').addEventListener('click', signOut);
  return me;
}

async function signOut() {
  await fetch('/logout', {method: 'POST', headers: {'X-XSRF-TOKEN': csrfToken()}, credentials: 'same-origin'});
  location.assign('/login?logout');
}

/** A status line for errors a person should read. */
export function showError(element, message) {
  element.replaceChildren(h('span', {}, message));
  element.hidden = !message;
}
