// The sign-in page: posts the form to Spring Security's /login with the CSRF token from the cookie.
import {csrfToken} from './api.js';
import {byId} from './dom.js';

const params = new URLSearchParams(location.search);
const message = byId('login-message');
if (params.has('error')) {
  message.textContent = 'Wrong user name or password. Please try again.';
  message.className = 'error';
  message.hidden = false;
} else if (params.has('logout')) {
  message.textContent = 'You are signed out.';
  message.className = 'notice';
  message.hidden = false;
}

byId('login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.target;
  const body = new URLSearchParams({username: form.username.value, password: form.password.value});
  const button = byId('sign-in');
  button.disabled = true;
  try {
    // Sent as a header (what the API expects on every write) rather than the form field.
    const response = await fetch('/login', {
      method: 'POST', body, credentials: 'same-origin', headers: {'X-XSRF-TOKEN': csrfToken()},
    });
    const landed = new URL(response.url);
    if (!response.ok || landed.pathname === '/login' || landed.searchParams.has('error')) {
      location.assign('/login?error');
      return;
    }
    const next = params.get('next');
    location.assign((next && next.startsWith('/') && !next.startsWith('//') ? next : '/') + location.hash);
  } catch {
    message.textContent = 'The server cannot be reached. Please try again.';
    message.className = 'error';
    message.hidden = false;
    button.disabled = false;
  }
});
byId('csrf').value = csrfToken();
