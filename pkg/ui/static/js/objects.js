// The table of created objects with their readiness, shared by the result and instance pages.
import { h } from './dom.js';

// stateOf words an object's state: Ready, Waiting (with what is awaited) or Failed.
export function stateOf(o) {
  if (o.ready) return ['ready', 'Ready'];
  if (!o.exists && o.message && o.message !== 'not found') return ['failed', 'Failed'];
  return ['waiting', 'Waiting'];
}

export function objectsTable(objects, caption) {
  return h('table', { class: 'objects status', id: 'objects' },
    h('caption', { class: 'visually-hidden', text: caption }),
    h('thead', {}, h('tr', {}, ['Kind', 'Name', 'Namespace', 'Status'].map((c) => h('th', { scope: 'col', text: c })))),
    h('tbody', {}, objects.map((o) => {
      const [state, word] = stateOf(o);
      return h('tr', { 'data-state': state },
        h('td', {}, h('span', { class: 'kind', text: o.kind })),
        h('td', { class: 'mono', text: o.name }),
        h('td', { class: 'mono muted', text: o.namespace || '—' }),
        h('td', {}, h('span', { class: `state state-${state}`, text: word }), o.message && !o.ready ? h('span', { class: 'state-why', text: ' ' + o.message }) : null));
    })));
}

// generatedPanel shows generated values, each secret masked until its Show button is pressed.
// Nested in another panel, it is a part of it rather than a panel of its own.
// note says where the values are kept.
export function generatedPanel(generated, nested = false, note = 'Shown once: they are not stored by the catalog.') {
  return h('section', { class: nested ? 'generated-part' : 'panel', 'aria-labelledby': 'generated-title' },
    h(nested ? 'h3' : 'h2', { id: 'generated-title', class: nested ? 'sub' : null, text: 'Generated values' }),
    h('p', { class: 'help', text: note }),
    h('dl', { class: 'generated' }, generated.map((g) => {
      const value = h('code', { class: 'mono', text: g.secret ? '••••••••' : g.value });
      const reveal = g.secret ? h('button', { type: 'button', class: 'reveal', 'aria-pressed': 'false', text: 'Show',
        onClick: (e) => { const shown = value.textContent === g.value; value.textContent = shown ? '••••••••' : g.value; e.target.textContent = shown ? 'Show' : 'Hide'; e.target.setAttribute('aria-pressed', String(!shown)); } }) : null;
      return [h('dt', { text: g.label }), h('dd', {}, value, reveal)];
    })));
}
