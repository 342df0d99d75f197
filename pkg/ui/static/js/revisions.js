// The template's revisions and, for any of them, what moving every instance of the template to
// it would do: the server's preview (templates/NAME/preview), which renders each instance
// with its own values and masks what the user may not read. Nothing is written.
import { k8s, templatePath, GROUP, APIError } from './api.js';
import { h, clear, announce, age, plural } from './dom.js';

const revisionsPath = (ns, name) =>
  `${GROUP}/namespaces/${encodeURIComponent(ns)}/templaterevisions?labelSelector=${encodeURIComponent('templates.stencil.dev/template=' + name)}`;

// The words a classification is shown with, worst first.
const RESULTS = [
  ['Forbidden', 'forbidden'], ['BreaksParameters', 'breaks its parameters'], ['Failed', 'fails'],
  ['WouldPrune', 'would prune'], ['Changed', 'changed'], ['Unchanged', 'unchanged'],
];
const WORDS = new Map(RESULTS);

// revisionsPanel is the panel of the template's page; null when the server keeps no revisions
// of it (an older server, or no right to read them).
export async function revisionsPanel(ns, name, template) {
  let list;
  try {
    list = await k8s('GET', revisionsPath(ns, name));
  } catch {
    return null;
  }
  const current = template.revision ? template.revision.number : 0;
  const revisions = (list.items || []).sort((a, b) => b.revision - a.revision);
  const result = h('div', { id: 'revision-preview', class: 'revision-preview', 'aria-live': 'polite' });
  const rows = revisions.map((r) => h('tr', {},
    h('td', { text: r.revision === current ? `${r.revision} (current)` : String(r.revision) }),
    h('td', { text: (r.author && r.author.username) || '—' }),
    h('td', { text: age(r.metadata.creationTimestamp) }),
    h('td', {}, h('button', { type: 'button', class: 'small', id: `preview-revision-${r.revision}`,
      text: 'Preview', 'aria-describedby': 'revisions-help', onclick: () => run(ns, name, r.revision, result) }))));
  return h('section', { class: 'panel revisions', 'aria-labelledby': 'revisions-title' },
    h('h2', { id: 'revisions-title', text: 'Revisions' }),
    h('p', { class: 'help', id: 'revisions-help',
      text: 'Preview shows, for every instance that follows this template, what moving it to that revision would change.' }),
    revisions.length ? h('table', { class: 'revisions', id: 'revisions' },
      h('thead', {}, h('tr', {}, ['Revision', 'Author', 'Stored', ''].map((c) => h('th', { scope: 'col', text: c })))),
      h('tbody', {}, rows)) : h('p', { text: 'No revision is kept.' }),
    result);
}

// run asks the server for the preview of revision and draws it into box.
async function run(ns, name, revision, box) {
  clear(box, h('p', { class: 'muted', text: `Previewing revision ${revision}…` }));
  let preview;
  try {
    preview = await k8s('POST', `${templatePath(ns, name)}/preview`, {
      apiVersion: 'templates.stencil.dev/v1alpha1', kind: 'TemplatePreview', spec: { revision } });
  } catch (err) {
    const message = err instanceof APIError && err.code === 403 ? `You may not preview this template: ${err.message}` : err.message;
    clear(box, h('p', { class: 'error', id: 'revision-preview-error', text: message }));
    announce(message, true);
    return;
  }
  draw(box, revision, preview.status || {});
}

function draw(box, revision, status) {
  const instances = status.instances || [];
  const skipped = status.skipped || [];
  const counts = RESULTS.filter(([c]) => (status.counts || {})[c]).map(([c, word]) => `${status.counts[c]} ${word}`);
  const summary = instances.length
    ? `Revision ${revision} across ${plural(instances.length, 'instance')}: ${counts.join(', ')}` : `No instance would move to revision ${revision}`;
  clear(box,
    h('p', { class: 'summary', id: 'revision-preview-summary', text: summary + (skipped.length ? `; ${skipped.length} left out (pinned or Manual)` : '') + '.' }),
    h('ul', { class: 'instance-previews' }, instances.map(item)),
    skipped.length ? h('p', { class: 'muted', text: 'Left out: ' + skipped.map((s) => `${s.name} (${s.reason})`).join(', ') }) : null,
    status.planHash ? h('p', { class: 'muted mono', text: `plan ${status.planHash.slice(0, 19)}…` }) : null);
  announce(summary);
}

// item is one instance: its result, and what changes, open for all but Unchanged.
function item(i) {
  const details = [];
  if (i.message) details.push(h('p', { text: i.message }));
  for (const c of i.causes || []) details.push(h('p', { class: 'error', text: c.field ? `${c.field}: ${c.message}` : c.message }));
  for (const o of i.objects || []) {
    const where = o.namespace ? `${o.namespace}/${o.name}` : o.name;
    details.push(h('div', { class: 'object-change' },
      h('p', {}, h('strong', { text: o.change }), ` ${o.kind} ${where}`),
      (o.fields || []).length ? h('ul', { class: 'fields mono' }, o.fields.map((f) => h('li', { text: field(f) }))) : null));
  }
  if (i.masked) details.push(h('p', { class: 'muted', text: 'Secret values are masked.' }));
  const label = h('span', {}, h('span', { class: 'mono', text: i.name }), ' ',
    h('span', { class: `result result-${i.classification.toLowerCase()}`, text: WORDS.get(i.classification) || i.classification }));
  if (details.length === 0) return h('li', { 'data-instance': i.name, 'data-result': i.classification }, label);
  return h('li', { 'data-instance': i.name, 'data-result': i.classification },
    h('details', { open: i.classification !== 'Unchanged' }, h('summary', {}, label), details));
}

function field(f) {
  switch (f.change) {
    case 'Added': return `+ ${f.path}: ${f.after}`;
    case 'Removed': return `- ${f.path}: ${f.before}`;
    case 'Changed': return `~ ${f.path}: ${f.before} → ${f.after}`;
    default: return f.after || f.path;
  }
}
