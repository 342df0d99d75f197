// The instances pages: the TemplateInstances of a namespace with their Ready condition, one
// instance's objects live, and uninstall behind a confirmation that names what goes.
import { k8s, instancesPath, servesInstances } from './api.js';
import { h, clear, announce, age, plural } from './dom.js';
import { action } from './api.js';
import { objectsTable, generatedPanel } from './objects.js';
import { instanceHref, instancesHref } from './routes.js';
import { Secrets } from './secrets.js';
import { showAllButton } from './preview.js';

const POLL_MS = 2000;

function condition(instance, type) {
  return ((instance.status && instance.status.conditions) || []).find((c) => c.type === type);
}

// NO_CLUSTER is the reason a server without a cluster (local mode) gives the conditions of
// every instance it stores: nothing is ever created for it, and nothing is to be waited for.
const NO_CLUSTER = 'NoCluster';

// readiness words an instance's state from its conditions.
function readiness(instance) {
  if (instance.metadata.deletionTimestamp) return ['waiting', 'Deleting', 'its objects are being removed'];
  const failed = condition(instance, 'Failed');
  if (failed && failed.status === 'True') return ['failed', 'Failed', failed.message];
  const ready = condition(instance, 'Ready');
  if (ready && ready.status === 'True') return ['ready', 'Ready', ready.message];
  if (ready && ready.reason === NO_CLUSTER) return ['stopped', 'Nothing created', ready.message];
  return ['waiting', 'Not ready', ready ? ready.message : 'not reconciled yet'];
}

function templateOf(instance) {
  const spec = instance.spec || {};
  return (spec.templateRef && spec.templateRef.name) || (spec.template && spec.template.metadata && `${spec.template.metadata.name} (inline)`) || '';
}

export async function renderInstances(main, config, ns, signal) {
  ns = ns || config.namespace;
  const head = h('div', { class: 'page-head' }, h('h1', { text: 'Instances' }),
    h('form', { class: 'filters inline', onSubmit: (e) => { e.preventDefault(); location.hash = instancesHref(nsInput.value.trim()); } },
      h('div', { class: 'filter' }, h('label', { for: 'instances-namespace', text: 'Namespace' })),
      null));
  const nsInput = h('input', { id: 'instances-namespace', type: 'text', value: ns, spellcheck: 'false' });
  head.querySelector('.filter').append(nsInput, h('button', { type: 'submit', text: 'Show' }));
  if (!(await servesInstances())) {
    clear(main, head, h('div', { class: 'notice' },
      h('p', { text: 'This cluster does not serve TemplateInstances (templates.stencil.dev/v1alpha1 templateinstances), so creating from the catalog applied each object directly, and there is no record to list or uninstall here.' })));
    return;
  }
  const box = h('div', { id: 'instances', class: 'panel' });
  clear(main, head, box);
  const draw = async () => {
    const list = await k8s('GET', instancesPath(ns));
    const items = list.items || [];
    clear(box, items.length === 0 ? h('p', { class: 'empty', text: `No instances in ${ns}.` }) : h('table', { class: 'objects' },
      h('caption', { class: 'visually-hidden', text: `Template instances in ${ns}` }),
      h('thead', {}, h('tr', {}, ['Name', 'Template', 'Status', 'Objects', 'Age', ''].map((c) => h('th', { scope: 'col', text: c })))),
      h('tbody', {}, items.map((i) => {
        const [state, word, why] = readiness(i);
        const objects = (i.status && i.status.objects) || [];
        return h('tr', { 'data-state': state },
          h('td', {}, h('a', { href: instanceHref(ns, i.metadata.name), text: i.metadata.name })),
          h('td', { class: 'mono', text: templateOf(i) }),
          h('td', {}, h('span', { class: `state state-${state}`, text: word }), why ? h('span', { class: 'state-why', text: ' ' + why }) : null),
          h('td', { text: String(objects.length) }),
          h('td', { text: age(i.metadata.creationTimestamp) }),
          h('td', {}, deleteButton(i, draw)));
      }))));
  };
  await draw();
  while (!signal.aborted) {
    await new Promise((r) => setTimeout(r, POLL_MS * 2));
    if (!signal.aborted && !document.querySelector('dialog[open]')) await draw().catch(() => {});
  }
}

// deleteButton asks for confirmation in a dialog that lists every object the uninstall
// removes, then deletes the instance, whose finalizer removes them.
function deleteButton(instance, after) {
  if (instance.metadata.deletionTimestamp) return null;
  return h('button', { type: 'button', class: 'danger', text: 'Delete', 'aria-label': `Delete instance ${instance.metadata.name}`,
    onClick: (e) => confirmDelete(instance, e.target, after) });
}

function confirmDelete(instance, opener, after) {
  const { name, namespace } = instance.metadata;
  const objects = (instance.status && instance.status.objects) || [];
  const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-body' },
    h('h2', { id: 'confirm-title', text: `Delete instance ${name}?` }),
    h('div', { id: 'confirm-body' },
      h('p', { text: objects.length ? `This uninstalls ${name} and deletes ${plural(objects.length, 'object')} it created in ${namespace}:` : `This deletes the instance ${name}; it records no objects.` }),
      objects.length ? h('ul', { class: 'confirm-list' }, objects.map((o) => h('li', {}, h('span', { class: 'kind', text: o.kind }), ' ', h('span', { class: 'mono', text: o.namespace && o.namespace !== namespace ? `${o.namespace}/${o.name}` : o.name })))) : null),
    h('form', { method: 'dialog', class: 'actions' },
      h('button', { value: 'delete', class: 'danger', text: `Delete ${name}` }),
      h('button', { value: 'cancel', autofocus: true, text: 'Cancel' })));
  dialog.addEventListener('close', async () => {
    dialog.remove();
    opener.focus();
    if (dialog.returnValue !== 'delete') return;
    try {
      await k8s('DELETE', `${instancesPath(namespace)}/${encodeURIComponent(name)}`);
      announce(`Instance ${name} is being deleted with ${plural(objects.length, 'object')}.`);
      await after();
    } catch (err) {
      announce(`Could not delete ${name}: ${err.message}`, true);
    }
  });
  document.body.append(dialog);
  dialog.showModal();
}

// renderInstance is one instance, live: its conditions and objects, and its message with the
// values of secret parameters masked until Show. On a server without a cluster it says so and
// stops: nothing will be created, so no generated value will ever be stored.
export async function renderInstance(main, ns, name, signal) {
  const title = h('h1', { id: 'instance-title', text: name });
  const status = h('p', { class: 'lead', role: 'status', id: 'instance-status' });
  const conditions = h('dl', { class: 'conditions' });
  const objectsBox = h('div', { id: 'objects-box' });
  const messageBox = h('div', { id: 'message-box' }, h('p', { class: 'help', text: 'Reading the message…' }));
  const message = { done: false, secrets: new Secrets() };
  clear(main,
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: instancesHref(ns), text: 'Instances' }), ' / ', h('span', { 'aria-current': 'page', text: name })),
    h('div', { class: 'page-head' }, title, status),
    h('div', { class: 'columns' },
      h('div', { class: 'main-col' }, h('section', { class: 'panel', 'aria-labelledby': 'objects-title' }, h('h2', { id: 'objects-title', text: 'Objects' }), objectsBox)),
      h('aside', { class: 'side-col' },
        h('section', { class: 'panel', 'aria-labelledby': 'message-title' }, h('h2', { id: 'message-title', text: 'Message' }), messageBox),
        h('section', { class: 'panel', 'aria-labelledby': 'conditions-title' }, h('h2', { id: 'conditions-title', text: 'Conditions' }), conditions))));
  let last = '';
  while (!signal.aborted) {
    try {
      const instance = await k8s('GET', `${instancesPath(ns)}/${encodeURIComponent(name)}`);
      const [state, word, why] = readiness(instance);
      if (!message.done) await showMessage(messageBox, ns, name, message, state === 'stopped');
      const secrets = message.secrets;
      const text = secrets.text(`${word}${why ? ': ' + why : ''}`);
      status.textContent = `Template ${templateOf(instance)} in ${ns} · ${text}`;
      status.dataset.state = state;
      if (text !== last) announce(text, state === 'failed');
      last = text;
      const reported = (instance.status && instance.status.conditions) || [];
      clear(conditions, reported.length ? reported.map((c) => [
        h('dt', { text: `${c.type}: ${c.status}` }), h('dd', { text: secrets.text([c.reason, c.message].filter(Boolean).join(' — ')) })])
        : h('p', { class: 'empty', text: 'None reported yet: the controller has not seen this instance.' }));
      const objects = ((instance.status && instance.status.objects) || []).map((o) => ({ ...o, exists: true }));
      clear(objectsBox, objects.length ? objectsTable(secrets.deep(objects), 'Objects of this instance')
        : h('p', { class: 'empty', id: 'objects-empty', text: state === 'stopped' ? 'Nothing was created, and nothing will be: this server runs without a cluster (local mode). The instance only records the template and its values.' : 'No objects recorded yet.' }));
      // Nothing changes for an instance of a server without a cluster: no more waiting.
      if (state === 'stopped') return;
    } catch (err) {
      status.textContent = err.code === 404 ? 'This instance no longer exists.' : err.message;
      if (err.code === 404) return;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

// showMessage shows the instance's message with the values it was rendered with, once the
// generated ones are stored, masking the secret ones; state.done says whether there is nothing
// more to wait for. Without a cluster (stopped) the generated values never come: it says so.
async function showMessage(box, ns, name, state, stopped) {
  let answer;
  try {
    answer = await action('POST', 'instance-message', { namespace: ns, name });
  } catch (err) {
    clear(box, h('p', { class: 'help', text: `The message cannot be shown: ${err.message}` }));
    state.done = err.code === 403 || err.code === 404;
    return;
  }
  if (answer.pending.length) {
    clear(box, h('p', { class: 'help', id: 'message-pending', text: stopped
      ? `No message: it needs the generated values of ${answer.pending.join(', ')}, which are made when the objects are created, and this server creates nothing (local mode).`
      : `The message appears once the generated values of ${answer.pending.join(', ')} are stored with the instance.` }));
    state.done = stopped;
    return;
  }
  const secrets = new Secrets();
  for (const s of answer.secrets || []) secrets.set(s.name, s.value);
  state.secrets = secrets;
  state.done = true;
  const text = h('pre', { class: 'message', id: 'result-message' });
  const draw = () => { text.textContent = answer.message ? secrets.text(answer.message) : '(this template has no message)'; };
  draw();
  clear(box, text,
    secrets.any() ? h('p', { class: 'help secrets-note' }, 'Secret values are masked (••••••••). ',
      showAllButton('instance-show-secrets', (shown) => { secrets.all = shown; draw(); })) : null,
    answer.generated.length ? generatedPanel(answer.generated.map((g) => ({ ...g, label: g.name, secret: true })), true,
      'Generated once and kept by the instance, which reuses them on every upgrade.') : null);
}
