// The live preview: the template processed with the form's values through
// templates/{name}/processed?dryRun=All, shown as a summary of its objects, the substituted
// message and the YAML that would be applied. Only the latest answer is shown.
import { k8s, k8sAnswer, templatePath, APIError } from './api.js';
import { h, clear, plural } from './dom.js';
import { toYAML } from './yaml.js';

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

export class Preview {
  constructor(ns, name) {
    this.ns = ns;
    this.name = name;
    this.sequence = 0;
    this.status = h('p', { class: 'preview-status', id: 'preview-status', role: 'status', text: 'Preview not run yet.' });
    this.summary = h('div', { class: 'preview-summary', id: 'preview-summary' });
    this.message = h('pre', { class: 'message', id: 'preview-message' });
    this.yaml = h('pre', { class: 'yaml', id: 'preview-yaml', tabindex: '0', 'aria-label': 'Processed objects as YAML' });
    const yamlBox = h('details', { class: 'yaml-box' }, h('summary', { text: 'YAML' }), this.yaml);
    this.element = h('section', { class: 'panel preview', 'aria-labelledby': 'preview-title' },
      h('div', { class: 'panel-head' }, h('h2', { id: 'preview-title', text: 'Preview' }), this.status),
      this.summary,
      h('h3', { class: 'sub', text: 'Message' }), this.message,
      h('p', { class: 'help', text: 'Values generated for the preview are examples: create generates new ones.' }),
      yamlBox);
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
    if (result instanceof APIError) {
      const n = result.causes.length || 1;
      this.status.textContent = `Not processed: ${plural(n, 'problem')} to fix.`;
      this.status.className = 'preview-status failed';
      this.element.classList.add('stale');
      return result;
    }
    this.element.classList.remove('stale');
    const items = result.items || [];
    this.status.textContent = `Up to date: ${plural(items.length, 'object')}.`;
    this.status.className = 'preview-status ok';
    clear(this.summary, summaryTable(items));
    this.message.textContent = result.message || '(this template has no message)';
    this.yaml.textContent = toYAML({ apiVersion: 'v1', kind: 'List', items });
    return result;
  }
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
