// Create: a TemplateInstance where the cluster serves them, so that what is created can be
// followed and uninstalled; otherwise each object of the processing answer is applied
// (server-side apply, as the user) by the catalog server, which kept that answer. Either way the browser then shows the result page.
import { action, k8s, instancesPath } from './api.js';
import { process, processToApply } from './preview.js';
import { remember } from './results.js';
import { resultHref, instanceHref } from './routes.js';

export async function create({ template, entry, fields, values, labels, namespace, instanceName, instances }) {
  const ns = template.metadata.namespace;
  const name = template.metadata.name;
  if (instances) {
    // A refusal of the values is shown next to the fields before anything is stored.
    await process(ns, name, values, labels, true);
    const created = await k8s('POST', instancesPath(namespace), instanceOf(template, values, labels, namespace, instanceName));
    location.hash = instanceHref(namespace, created.metadata.name);
    return;
  }
  // The catalog server applies the objects of this answer, which it kept: never objects the
  // page sends.
  const { list, answer } = await processToApply(ns, name, values, labels);
  const objects = await action('POST', 'apply', { namespace, answer });
  const generated = fields
    .filter((f) => f.generated && !values[f.name])
    .map((f) => ({ label: f.label, name: f.name, secret: f.secret, value: ((list.parameters || []).find((p) => p.name === f.name) || {}).value || '' }));
  const id = remember({ entry, namespace, message: list.message || '', generated, objects, created: new Date().toISOString() });
  location.hash = resultHref(id);
}

// instanceOf is the TemplateInstance of the form: a reference to the template when it lives in
// the target namespace, the template itself otherwise. The values are the form's, where a
// generated field left empty is absent, so that the controller generates it once and keeps it.
function instanceOf(template, values, labels, namespace, instanceName) {
  const spec = { parameters: values, labels };
  if (template.metadata.namespace === namespace) {
    spec.templateRef = { name: template.metadata.name };
  } else {
    const { metadata, ...rest } = template;
    spec.template = { ...rest, metadata: { name: metadata.name, annotations: metadata.annotations, labels: metadata.labels } };
  }
  return { apiVersion: 'templates.stencil.dev/v1alpha1', kind: 'TemplateInstance', metadata: { name: instanceName || template.metadata.name, namespace }, spec };
}
