// Small DOM helpers: every page builds its elements with h(), never with innerHTML, so text
// from the cluster is never parsed as markup.

// h creates an element. attrs: class, text, on<Event> handlers, boolean and string attributes;
// children: nodes, strings, arrays of them; null and false are skipped.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'value') el.value = value;
    else if (key === 'checked') el.checked = !!value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// clear empties an element and fills it with children.
export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// announce tells screen readers about a change; assertive for errors.
export function announce(message, assertive = false) {
  const region = document.getElementById(assertive ? 'alert' : 'live');
  region.textContent = '';
  // A fresh text node after a tick makes the same message be read again.
  setTimeout(() => { region.textContent = message; }, 30);
}

// debounce calls fn once calls stop for ms milliseconds.
export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

// plural says "1 object" or "3 objects".
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

// age says how long ago an RFC 3339 time was, as kubectl does.
export function age(timestamp) {
  const seconds = Math.max(0, (Date.now() - Date.parse(timestamp)) / 1000);
  if (seconds < 120) return `${Math.floor(seconds)}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}
