// The result page after a create without TemplateInstances: the message with the values
// processing used (secret ones masked until Show), the generated values (secrets masked until
// asked), and every object with its readiness, read again every few seconds until all are
// ready.
import { action } from './api.js';
import { h, clear, announce, plural } from './dom.js';
import { recall } from './results.js';
import { objectsTable, stateOf, generatedPanel } from './objects.js';
import { iconFor } from './icons.js';
import { templateHref } from './routes.js';
import { Secrets } from './secrets.js';
import { showAllButton } from './preview.js';

const POLL_MS = 2000;

export async function renderResult(main, id, signal) {
  const result = recall(id);
  if (!result) {
    clear(main, h('h1', { text: 'Result no longer here' }),
      h('p', { text: 'Results are kept in this tab only, and are gone after a reload. Generated secrets are shown once.' }),
      h('p', {}, h('a', { href: '#/', text: 'Back to the catalog' })));
    return;
  }
  const failed = result.objects.filter((o) => stateOf(o)[0] === 'failed').length;
  const secrets = result.secrets || new Secrets();
  secrets.all = false;
  const summary = h('p', { class: 'lead', id: 'result-summary', role: 'status' });
  const table = h('div', { id: 'objects-box' });
  const message = h('pre', { class: 'message', id: 'result-message' });
  const draw = (objects) => {
    result.objects = objects;
    const ready = objects.filter((o) => o.ready).length;
    summary.textContent = `${ready} of ${plural(objects.length, 'object')} ready` + (failed ? `, ${failed} could not be created` : '') + '.';
    clear(table, objectsTable(secrets.deep(objects), 'Created objects and their readiness'));
    message.textContent = result.message ? secrets.text(result.message) : '(this template has no message)';
    return ready;
  };
  clear(main,
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/', text: 'Catalog' }), ' / ',
      h('a', { href: templateHref(result.entry.namespace, result.entry.name), text: result.entry.displayName }), ' / ', h('span', { 'aria-current': 'page', text: 'Result' })),
    h('div', { class: 'template-head' }, iconFor(result.entry, 'lg'),
      h('div', {}, h('h1', { id: 'result-title', text: titleOf(result.entry.displayName, failed, result.objects.length) }),
        h('p', { class: 'provider', text: `in namespace ${result.namespace}` }))),
    failed === result.objects.length && failed > 0 ? h('div', { class: 'notice warning', id: 'result-notice' },
      h('p', { text: result.coreAPI === false
        ? 'Nothing was created: this server serves no core API. A local-mode Stencil server renders templates only, so it has nowhere to create them.'
        : 'None of the objects could be created: the cluster refused them or does not serve their kinds.' })) : null,
    h('div', { class: 'columns' },
      h('div', { class: 'main-col' },
        h('section', { class: 'panel', 'aria-labelledby': 'objects-title' }, h('h2', { id: 'objects-title', text: 'Objects' }), summary, table)),
      h('aside', { class: 'side-col' },
        h('section', { class: 'panel', 'aria-labelledby': 'message-title' }, h('h2', { id: 'message-title', text: 'Message' }), message,
          secrets.any() ? h('p', { class: 'help secrets-note' }, 'Secret values are masked (••••••••). ',
            showAllButton('result-show-secrets', (shown) => { secrets.all = shown; draw(result.objects); })) : null),
        result.generated.length ? generatedPanel(result.generated) : null)));
  const ready = draw(result.objects);
  announce(`${result.entry.displayName}: ${summary.textContent}`, failed > 0);
  if (ready < result.objects.length) poll(result, draw, signal);
}

function titleOf(name, failed, total) {
  if (failed === 0) return `${name} created`;
  return failed === total ? `${name}: nothing could be created` : `${name}: created with problems`;
}

// poll reads the objects again until all are ready or the user leaves the page.
async function poll(result, draw, signal) {
  const pending = () => result.objects.some((o) => !o.ready && stateOf(o)[0] !== 'failed');
  while (!signal.aborted && pending()) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    if (signal.aborted) return;
    try {
      const before = result.objects.filter((o) => o.ready).length;
      const fresh = await action('POST', 'status', { objects: result.objects });
      // An object that could not be created stays as it was reported.
      const merged = fresh.map((o, i) => (stateOf(result.objects[i])[0] === 'failed' ? result.objects[i] : o));
      if (!signal.aborted && draw(merged) !== before) announce(`${merged.filter((o) => o.ready).length} of ${merged.length} objects ready`);
    } catch { /* the next round tries again */ }
  }
}
