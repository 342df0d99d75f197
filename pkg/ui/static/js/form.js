// The parameter form: one labelled input per field description (schema.js), help and hints
// tied to the input with aria-describedby, and an error slot per field that screen readers
// hear when it changes.
import { h, plural } from './dom.js';
import { arrange } from './groups.js';

// renderField builds one field's row; onInput is called on every change, onReveal when a
// secret's Show button is pressed.
function renderField(f, onInput, onReveal) {
  const id = `param-${f.name}`;
  const described = [`${id}-help`, f.generated ? `${id}-hint` : null, `${id}-error`].filter(Boolean).join(' ');
  const common = { id, name: f.name, 'aria-describedby': described, 'aria-required': f.required ? 'true' : null, 'data-param': f.name };
  let input;
  switch (f.widget) {
    case 'select':
      input = h('select', common,
        f.required ? null : h('option', { value: '', text: '(not set)' }),
        f.enum.map((v) => h('option', { value: v, text: v })));
      input.value = f.default;
      break;
    case 'checkbox':
      input = h('input', { ...common, type: 'checkbox', checked: f.default === 'true' });
      break;
    case 'textarea':
      input = h('textarea', { ...common, rows: f.type === 'json' ? 4 : 5, spellcheck: 'false', value: f.default });
      break;
    case 'number':
      input = h('input', { ...common, type: 'number', inputmode: f.type === 'int' ? 'numeric' : 'decimal', step: f.type === 'int' ? '1' : 'any',
        min: f.minimum || null, max: f.maximum || null, value: f.default });
      break;
    default:
      input = h('input', { ...common, type: f.widget === 'password' ? 'password' : 'text', value: f.default,
        autocomplete: f.secret ? 'new-password' : 'off', spellcheck: 'false', minlength: f.minLength ?? null, maxlength: f.maxLength ?? null });
  }
  if (f.generated) input.placeholder = 'generated if empty';
  else if (f.writeOnly) input.placeholder = 'the template\'s value if empty';
  // A secret's default is never written out: the placeholder is in the page's text.
  else if (f.default && !f.required && f.widget !== 'select') input.placeholder = f.secret ? 'the default if empty' : `default if empty: ${f.default}`;
  // A multi-line secret (a key, a certificate) is masked as a password input is.
  if (f.secret && f.widget === 'textarea') input.classList.add('masked');
  input.addEventListener(f.widget === 'checkbox' || f.widget === 'select' ? 'change' : 'input', onInput);

  const label = h('label', { for: id, class: 'field-label' },
    h('span', { text: f.label }),
    f.required ? h('span', { class: 'required', title: 'required' }, h('span', { 'aria-hidden': 'true', text: ' *' }), h('span', { class: 'visually-hidden', text: ' (required)' })) : null);
  const control = f.secret && (f.widget === 'password' || f.widget === 'textarea') ? passwordControl(input, (shown) => onReveal(f.name, shown)) : input;
  const row = h('div', { class: `field field-${f.widget}`, 'data-field': f.name },
    f.widget === 'checkbox' ? h('div', { class: 'check' }, control, label) : [label, control],
    h('p', { class: 'help', id: `${id}-help` },
      f.help ? h('span', { text: f.help + ' ' }) : null,
      h('code', { class: 'param-name', text: f.name }),
      constraintsText(f) ? h('span', { class: 'constraints', text: ' · ' + constraintsText(f) }) : null),
    f.generated ? h('p', { class: 'hint', id: `${id}-hint` }, 'Generated if empty ', h('code', { text: f.generated })) : null,
    h('p', { class: 'error', id: `${id}-error`, hidden: true }));
  return { row, input };
}

// passwordControl wraps a masked input with a button that shows and hides the value, here and
// wherever the page shows it (onReveal).
function passwordControl(input, onReveal) {
  const toggle = h('button', { type: 'button', class: 'reveal', 'aria-controls': input.id, 'aria-pressed': 'false', text: 'Show' });
  toggle.setAttribute('aria-label', 'Show the value');
  toggle.addEventListener('click', () => {
    const shown = toggle.getAttribute('aria-pressed') !== 'true';
    if (input.tagName === 'TEXTAREA') input.classList.toggle('masked', !shown);
    else input.type = shown ? 'text' : 'password';
    toggle.textContent = shown ? 'Hide' : 'Show';
    toggle.setAttribute('aria-pressed', String(shown));
    toggle.setAttribute('aria-label', shown ? 'Hide the value' : 'Show the value');
    onReveal(shown);
  });
  return h('div', { class: 'password' }, input, toggle);
}

// constraintsText says what the template declares beyond the type, for the help line.
function constraintsText(f) {
  const parts = [];
  if (f.type !== 'string' && f.widget !== 'checkbox') parts.push(f.type);
  if (f.secret) parts.push('secret');
  if (f.pattern) parts.push(`pattern ${f.pattern}`);
  if (f.minimum !== '' && f.maximum !== '') parts.push(`${f.minimum} to ${f.maximum}`);
  else if (f.minimum !== '') parts.push(`at least ${f.minimum}`);
  else if (f.maximum !== '') parts.push(`at most ${f.maximum}`);
  // minLength 1 only says the field must not be emptied, which the required marker shows.
  const min = (f.minLength ?? 0) > 1 ? f.minLength : null;
  if (min !== null && f.maxLength !== null) parts.push(`${min}–${f.maxLength} characters`);
  else if (min !== null) parts.push(`at least ${min} characters`);
  else if (f.maxLength !== null) parts.push(`at most ${f.maxLength} characters`);
  return parts.join(', ');
}

// ParameterForm is the rendered form of a list of fields, laid out by arrange: the fields to
// fill, the template's named groups, and the optional ones folded under their count.
export class ParameterForm {
  // annotations are the template's (its parameter groups); onInput(name) follows every change,
  // onReveal(name, shown) a secret's Show button.
  constructor(fields, annotations, onInput, onReveal = () => {}) {
    this.fields = fields;
    this.inputs = new Map();
    this.revealed = new Set();
    const rows = new Map();
    for (const f of fields) {
      const { row, input } = renderField(f, () => onInput(f.name), (name, shown) => {
        if (shown) this.revealed.add(name); else this.revealed.delete(name);
        onReveal(name, shown);
      });
      this.inputs.set(f.name, input);
      rows.set(f.name, row);
    }
    const { main, groups, optional } = arrange(fields, annotations);
    const section = (id, title, members, open, help) => h('details', { class: 'param-group', id, open },
      h('summary', {}, h('span', { text: title }), ' ', h('span', { class: 'group-count', text: `(${members.length})` })),
      help ? h('p', { class: 'help group-help', text: help }) : null,
      h('div', { class: 'fields' }, members.map((f) => rows.get(f.name))));
    this.element = h('div', { class: 'fields' },
      fields.length ? null : h('p', { class: 'empty', id: 'no-parameters', text: 'This template has no parameters.' }),
      main.map((f) => rows.get(f.name)),
      groups.map((g, i) => section(`param-group-${i}`, g.title, g.fields, g.open)),
      optional.length ? section('param-group-optional', 'Optional parameters', optional, false,
        `${plural(optional.length, 'parameter')} with a default or a generator: leave them as they are, or change them here.`) : null);
  }

  // values are what is sent, as the schema's contract says: an empty optional or generated
  // field is left out (the template's default applies, the generator runs); an empty
  // required field is sent empty, so that the server says it must be filled.
  values() {
    const out = {};
    for (const f of this.fields) {
      const input = this.inputs.get(f.name);
      const value = input.type === 'checkbox' ? String(input.checked) : input.value;
      if (value !== '' || f.required) out[f.name] = value;
    }
    return out;
  }

  // setErrors shows each field's messages and clears the others'.
  setErrors(byField) {
    for (const [name, input] of this.inputs) {
      const messages = byField.get(name) || [];
      const slot = document.getElementById(`param-${name}-error`);
      slot.hidden = messages.length === 0;
      slot.textContent = messages.join('; ');
      input.setAttribute('aria-invalid', messages.length ? 'true' : 'false');
      input.closest('.field').classList.toggle('invalid', messages.length > 0);
      // A folded field with an error is unfolded, so that it is seen and can take the focus.
      const group = input.closest('details');
      if (messages.length && group) group.open = true;
    }
  }

  // firstInvalid is the first input showing an error, to move the focus to.
  firstInvalid() {
    return [...this.inputs.values()].find((i) => i.getAttribute('aria-invalid') === 'true') || null;
  }
}

// parseLabels reads "key=value" lines; it returns the labels and the lines it cannot read.
export function parseLabels(text) {
  const labels = {};
  const problems = [];
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const i = line.indexOf('=');
    if (i <= 0) problems.push(`“${line}” is not key=value`);
    else labels[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return { labels, problems };
}
