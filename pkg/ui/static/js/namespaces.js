// The namespace picker: a list of the namespaces the user may list, or a text field with
// suggestions when listing namespaces is not allowed or the server serves none (local mode).
// The catalog server lists them (/ui/api/namespaces): it asks discovery first, never asks a
// server for what it does not serve, and answers a refusal as an empty list with its reason,
// so that no request of the page fails for it.
import { action } from './api.js';
import { h } from './dom.js';

export async function namespacePicker(config, templateNamespace) {
  const preferred = config.namespace || templateNamespace;
  let names = [];
  try {
    names = (await action('GET', 'namespaces')).names || [];
  } catch { /* the catalog server did not answer: the text field below */ }
  let control;
  if (names.length) {
    control = h('select', { id: 'namespace', 'aria-describedby': 'namespace-help' }, names.map((n) => h('option', { value: n, text: n })));
    control.value = names.includes(preferred) ? preferred : names[0];
  } else {
    const suggestions = [...new Set([preferred, templateNamespace, ...(config.catalogNamespaces || [])])];
    control = h('input', { id: 'namespace', type: 'text', list: 'namespace-options', value: preferred, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'namespace-help' });
    control = [control, h('datalist', { id: 'namespace-options' }, suggestions.map((n) => h('option', { value: n })))];
  }
  const input = Array.isArray(control) ? control[0] : control;
  return {
    element: h('div', { class: 'field' },
      h('label', { for: 'namespace', class: 'field-label', text: 'Create in namespace' }), control,
      h('p', { class: 'help', id: 'namespace-help', text: names.length ? 'Where the objects are created.' : 'Where the objects are created: type a namespace.' })),
    value: () => input.value.trim(),
  };
}
