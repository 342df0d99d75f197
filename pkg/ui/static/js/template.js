// The template page: what the template is and creates, the form built from its parameter
// schema, the live preview, the create button, the rollout of its new revision (pause, resume,
// undo for those allowed), and the revisions with what moving the instances to each would do.
import { k8s, templatePath, servesInstances, APIError } from './api.js';
import { h, clear, announce, debounce, plural } from './dom.js';
import { describe, kindCounts } from './meta.js';
import { iconFor } from './icons.js';
import { fieldsFromSchema, check, fieldOfCause } from './schema.js';
import { ParameterForm, parseLabels } from './form.js';
import { Preview } from './preview.js';
import { create, nothingCreated } from './create.js';
import { namespacePicker } from './namespaces.js';
import { revisionsPanel } from './revisions.js';
import { rolloutPanel } from './rollout.js';

export async function renderTemplate(main, config, ns, name) {
  // The template for what it is and creates; its parameters only through the schema.
  const [template, schema, instances] = await Promise.all([
    k8s('GET', templatePath(ns, name)), k8s('GET', `${templatePath(ns, name)}/schema`), servesInstances()]);
  // A server that keeps instances keeps revisions: the panel previews a move to any of them.
  const [revisions, rollout] = instances
    ? await Promise.all([revisionsPanel(ns, name, template), rolloutPanel(ns, name, template)]) : [null, null];
  const entry = describe(template.metadata);
  const fields = fieldsFromSchema(schema);
  // The schema lists the parameters in the template's order: a 422's parameters[i] is fields[i].
  const parameterNames = fields.map((f) => f.name);
  const serverErrors = new Map();
  let generalErrors = [];

  const errorBox = h('div', { class: 'form-errors', id: 'form-errors', hidden: true, tabindex: '-1' });
  const labelsInput = h('textarea', { id: 'labels', rows: 2, spellcheck: 'false', placeholder: 'team=payments', 'aria-describedby': 'labels-help labels-error' });
  const labelsError = h('p', { class: 'error', id: 'labels-error', hidden: true });
  const target = await namespacePicker(config, ns);
  const instanceName = instances ? h('input', { id: 'instance-name', type: 'text', value: name, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'instance-name-help' }) : null;
  const submit = h('button', { type: 'submit', class: 'primary', id: 'create', text: 'Create' });
  const createNotice = h('div', { class: 'notice warning', id: 'create-notice', hidden: true });

  const showErrors = () => {
    const byField = new Map();
    const values = form.values();
    for (const f of fields) {
      const messages = serverErrors.get(f.name) || check(f, values[f.name]);
      if (messages.length) byField.set(f.name, messages);
    }
    form.setErrors(byField);
    const labelProblems = [...parseLabels(labelsInput.value).problems, ...(serverErrors.get('@labels') || [])];
    labelsError.hidden = labelProblems.length === 0;
    labelsError.textContent = labelProblems.join('; ');
    labelsInput.setAttribute('aria-invalid', String(labelProblems.length > 0));
    errorBox.hidden = generalErrors.length === 0;
    clear(errorBox, generalErrors.length ? [h('p', { text: 'The server refused these values:' }), h('ul', {}, generalErrors.map((m) => h('li', { text: m })))] : []);
    return byField.size + labelProblems.length + generalErrors.length;
  };

  // applyAnswer puts a refusal's causes next to the fields they name.
  const applyAnswer = (answer) => {
    serverErrors.clear();
    generalErrors = [];
    if (answer instanceof APIError) {
      if (answer.causes.length === 0) generalErrors.push(preview.mask(answer.message));
      for (const cause of answer.causes) {
        const field = fieldOfCause(cause, parameterNames);
        // The server may quote a value it refuses: a secret one is masked here too.
        const text = preview.mask(cause.message || answer.message);
        if (field) serverErrors.set(field, [...(serverErrors.get(field) || []), text]);
        else generalErrors.push(cause.field ? `${cause.field}: ${text}` : text);
      }
    }
    const problems = showErrors();
    if (problems) announce(`${plural(problems, 'problem')}: ${describeProblems()}`, true);
    else announce(preview.status.textContent);
  };
  const describeProblems = () => [...document.querySelectorAll('.field.invalid .field-label > span:first-child')].map((l) => l.textContent).join(', ');

  const refresh = async () => {
    const { labels } = parseLabels(labelsInput.value);
    const answer = await preview.run(form.values(), labels);
    if (answer) applyAnswer(answer);
  };
  const schedule = debounce(refresh, 350);
  const form = new ParameterForm(fields, template.metadata.annotations, (changed) => {
    serverErrors.delete(changed);
    showErrors();
    schedule();
  }, () => preview.draw());
  const preview = new Preview(ns, name, fields, form.revealed);
  labelsInput.addEventListener('input', () => { serverErrors.delete('@labels'); showErrors(); schedule(); });

  const formElement = h('form', { class: 'panel form', id: 'template-form', novalidate: true, 'aria-labelledby': 'form-title' },
    h('h2', { id: 'form-title', text: 'Parameters' }),
    errorBox,
    form.element,
    h('fieldset', { class: 'where' },
      h('legend', { text: 'Where and how' }),
      target.element,
      instanceName ? h('div', { class: 'field' },
        h('label', { for: 'instance-name', class: 'field-label', text: 'Instance name' }), instanceName,
        h('p', { class: 'help', id: 'instance-name-help', text: 'The TemplateInstance that records what is created, so it can be followed and uninstalled.' })) : null,
      h('div', { class: 'field' },
        h('label', { for: 'labels', class: 'field-label', text: 'Extra labels' }), labelsInput,
        h('p', { class: 'help', id: 'labels-help', text: 'One key=value per line, added to every object.' }), labelsError)),
    createNotice,
    h('div', { class: 'actions' }, submit, h('a', { href: '#/', class: 'button', text: 'Cancel' })));

  formElement.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    submit.textContent = 'Creating…';
    try {
      const { labels, problems } = parseLabels(labelsInput.value);
      if (problems.length) throw new APIError(422, { message: problems.join('; '), details: { causes: problems.map((m) => ({ field: 'labels', message: m })) } });
      await create({ template, entry, fields, values: form.values(), labels, namespace: target.value(), instanceName: instanceName && instanceName.value.trim(), instances, config });
    } catch (err) {
      applyAnswer(err instanceof APIError ? err : new APIError(0, { message: String(err) }));
      (form.firstInvalid() || (errorBox.hidden ? submit : errorBox)).focus();
      submit.disabled = false;
      submit.textContent = 'Create';
    }
  });

  clear(main,
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/', text: 'Catalog' }), ' / ', h('span', { 'aria-current': 'page', text: entry.displayName })),
    header(entry),
    h('div', { class: 'columns' }, h('div', { class: 'main-col' }, formElement, rollout, revisions), h('aside', { class: 'side-col' }, about(entry, template), preview.element)));
  refresh();
  // Said before Create, once the server has answered whether anything would be created.
  nothingCreated(config, instances, target.value(), template).then((why) => {
    if (!why || !createNotice.isConnected) return;
    clear(createNotice, h('p', {}, h('strong', { text: 'Nothing will be created. ' }), why));
    createNotice.hidden = false;
    submit.setAttribute('aria-describedby', 'create-notice');
  });
}

function header(entry) {
  return h('div', { class: 'template-head' },
    iconFor(entry, 'lg'),
    h('div', {},
      h('h1', { text: entry.displayName }),
      h('p', { class: 'provider' }, entry.provider ? `by ${entry.provider} · ` : '', h('span', { class: 'mono', text: `${entry.namespace}/${entry.name}` })),
      h('p', { class: 'tags' }, entry.tags.map((t) => h('span', { class: 'tag static', text: t })))));
}

// about is the template's description, links and the objects it creates.
function about(entry, template) {
  const counts = kindCounts(template.objects);
  const links = [[entry.documentationURL, 'Documentation'], [entry.supportURL, 'Support']].filter(([url]) => url);
  return h('section', { class: 'panel about', 'aria-labelledby': 'about-title' },
    h('h2', { id: 'about-title', text: 'About' }),
    entry.longDescription ? h('p', { class: 'long', text: entry.longDescription }) : null,
    entry.description ? h('p', { class: 'description', text: entry.description }) : null,
    links.length ? h('p', { class: 'links' }, links.map(([url, text]) => h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', text: `${text} ↗` }))) : null,
    h('h3', { class: 'sub', text: 'These resources will be created' }),
    h('ul', { class: 'kinds' }, counts.map(([kind, n]) => h('li', {}, h('span', { class: 'kind', text: kind }), h('span', { class: 'count', text: `× ${n}` })))));
}
