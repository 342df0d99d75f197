// The live preview: the template processed with the form's values through
// templates/{name}/processed?dryRun=All, shown as a summary of its objects, the substituted
// message and the YAML that would be applied. Only the latest answer is shown. The values of
// secret parameters, typed or generated, are masked in all of it until the user presses Show,
// at the field (that parameter's) or here (all of them).
import { k8s, k8sAnswer, templatePath, APIError } from './api.js';
import { h, clear, plural } from './dom.js';
import { toYAML } from './yaml.js';
import { Secrets } from './secrets.js';

// processBody is the TemplateParameters of a request.
export function processBody(values, labels) {
  return { apiVersion: 'templates.stencil.dev/v1alpha1', kind: 'TemplateParameters', parameters: values, labels };
}

// process asks the server to process the template; dryRun marks it as a preview.
export function process(ns, name, values, labels, dryRun) {
  return k8s('POST', `${templatePath(ns, name)}/processed${dryRun ? '?dryRun=All' : ''}`, processBody(values, labels));
}

// processToApply processes the template for good and resolves to the List and the id of its
// objects, which the catalog server applies.
export function processToApply(ns, name, values, labels) {
  return k8sAnswer(`${templatePath(ns, name)}/processed`, processBody(values, labels));
}

// secretsOf are the values of the secret fields: as typed, and as processing used them (a
// generated value, a hidden default) when list is an answer.
export function secretsOf(fields, values, list) {
  const secrets = new Secrets();
  const used = new Map(((list && list.parameters) || []).map((p) => [p.name, p.value]));
  for (const f of fields) {
    if (f.secret) secrets.set(f.name, values[f.name], used.get(f.name));
  }
  return secrets;
}

// showAllButton is a page's Show for every secret value at once; onChange(shown) redraws.
export function showAllButton(id, onChange) {
  const button = h('button', { type: 'button', class: 'reveal', id, 'aria-pressed': 'false', text: 'Show secrets' });
  button.addEventListener('click', () => {
    const shown = button.getAttribute('aria-pressed') !== 'true';
    button.setAttribute('aria-pressed', String(shown));
    button.textContent = shown ? 'Hide secrets' : 'Show secrets';
    onChange(shown);
  });
  return button;
}

export class Preview {
  // fields are the form's; revealed is the set of the parameters whose Show is pressed.
  constructor(ns, name, fields, revealed) {
    this.ns = ns;
    this.name = name;
    this.fields = fields;
    this.revealed = revealed;
    this.showAll = false;
    this.last = null;
    this.sequence = 0;
    this.status = h('p', { class: 'preview-status', id: 'preview-status', role: 'status', text: 'Preview not run yet.' });
    this.summary = h('div', { class: 'preview-summary', id: 'preview-summary' });
    this.message = h('pre', { class: 'message', id: 'preview-message' });
    this.yaml = h('pre', { class: 'yaml', id: 'preview-yaml', tabindex: '0', 'aria-label': 'Processed objects as YAML' });
    const hasSecrets = fields.some((f) => f.secret);
    const yamlBox = h('details', { class: 'yaml-box' }, h('summary', { text: 'YAML' }), this.yaml);
    this.element = h('section', { class: 'panel preview', 'aria-labelledby': 'preview-title' },
      h('div', { class: 'panel-head' }, h('h2', { id: 'preview-title', text: 'Preview' }), this.status),
      this.summary,
      h('h3', { class: 'sub', text: 'Message' }), this.message,
      h('p', { class: 'help', text: 'Values generated for the preview are examples: create generates new ones.' }),
      hasSecrets ? h('p', { class: 'help secrets-note' }, 'Secret values are masked (••••••••). ',
        showAllButton('preview-show-secrets', (shown) => { this.showAll = shown; this.draw(); })) : null,
      yamlBox);
  }

  // secrets are the secret values of the answer shown and of the latest values tried, and which
  // of them are shown.
  secrets() {
    const secrets = secretsOf(this.fields, this.last ? this.last.values : {}, this.last && this.last.list);
    for (const f of this.fields) if (f.secret) secrets.set(f.name, (this.tried || {})[f.name]);
    secrets.shown = this.revealed;
    secrets.all = this.showAll;
    return secrets;
  }

  // mask masks a text of the server's (an error) as the preview is masked.
  mask(text) {
    return this.secrets().text(text);
  }

  // draw shows the latest answer, masked as the user asked.
  draw() {
    if (!this.last || !this.last.list) return;
    const secrets = this.secrets();
    const list = this.last.list;
    const items = secrets.deep(list.items || []);
    clear(this.summary, summaryTable(items));
    this.message.textContent = list.message ? secrets.text(list.message) : '(this template has no message)';
    showYAML(this.yaml, toYAML({ apiVersion: 'v1', kind: 'List', items }));
  }

  // run processes the values and shows the answer. It resolves to the List, or to the
  // APIError of a refusal (rendered by the caller next to the fields), or to null when a newer
  // run superseded it.
  async run(values, labels) {
    const mine = ++this.sequence;
    this.element.setAttribute('aria-busy', 'true');
    this.status.textContent = 'Updating…';
    this.status.className = 'preview-status busy';
    let result;
    try {
      result = await process(this.ns, this.name, values, labels, true);
    } catch (err) {
      result = err instanceof APIError ? err : new APIError(0, { message: String(err) });
    }
    if (mine !== this.sequence) return null;
    this.element.removeAttribute('aria-busy');
    // The values of a refusal are masked in its messages too, and the answer shown keeps its own.
    this.tried = values;
    if (result instanceof APIError) {
      const n = result.causes.length || 1;
      this.status.textContent = `Not processed: ${plural(n, 'problem')} to fix.`;
      this.status.className = 'preview-status failed';
      this.element.classList.add('stale');
      return result;
    }
    this.element.classList.remove('stale');
    this.status.textContent = `Up to date: ${plural((result.items || []).length, 'object')}.`;
    this.status.className = 'preview-status ok';
    this.last = { values, list: result };
    this.draw();
    return result;
  }
}

// showYAML writes YAML into a pre, a block per line indented as far as its text starts (two
// more for a list item), so that a long line wraps under itself, a hanging indent, instead of
// being cut at the pane's edge or scrolled out of view. The pre's text stays the YAML.
function showYAML(pre, text) {
  pre.replaceChildren(...text.replace(/\n$/, '').split('\n').map((line) => {
    const indent = line.length - line.trimStart().length + (/^\s*- /.test(line) ? 2 : 0) + 2;
    const el = h('span', { class: 'line', text: line + '\n' });
    // Set through the style object: the Content-Security-Policy refuses style attributes.
    el.style.paddingLeft = `${indent}ch`;
    el.style.textIndent = `-${indent}ch`;
    return el;
  }));
}

// summaryTable lists each object by kind, name and namespace.
export function summaryTable(items) {
  return h('table', { class: 'objects' },
    h('caption', { class: 'visually-hidden', text: 'Objects that will be created' }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Kind' }), h('th', { scope: 'col', text: 'Name' }), h('th', { scope: 'col', text: 'API version' }))),
    h('tbody', {}, items.map((o) => h('tr', {},
      h('td', {}, h('span', { class: 'kind', text: o.kind })),
      h('td', { class: 'mono', text: (o.metadata && (o.metadata.name || o.metadata.generateName)) || '' }),
      h('td', { class: 'mono muted', text: o.apiVersion })))));
}
