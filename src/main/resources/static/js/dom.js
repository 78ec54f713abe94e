// Building the page from data without ever parsing it as HTML: every string becomes a text node or an
// attribute value, so a message, a title or an error from the server can never inject markup.

/** h('p', {class: 'x', onclick: fn}, 'text', child) → an element. */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      element.className = value;
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else if (value === true) {
      element.setAttribute(name, '');
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

export function byId(id) {
  return document.getElementById(id);
}

/** A date and time in the reader's locale, e.g. "2 Dec 2026, 16:41". */
export function when(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toLocaleString(undefined, {dateStyle: 'medium', timeStyle: 'short'});
}

/** Micro-dollars as dollars, e.g. 1234567 → "$1.23"; amounts under a cent keep four decimals. */
export function dollars(micros) {
  const value = Number(micros || 0) / 1e6;
  const digits = value !== 0 && Math.abs(value) < 0.01 ? 4 : 2;
  return '$' + value.toFixed(digits);
}
