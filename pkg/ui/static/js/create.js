// Create: a TemplateInstance where the cluster serves them, so that what is created can be
// followed and uninstalled; otherwise each object of the processing answer is applied
// (server-side apply, as the user) by the catalog server, which kept that answer. Either way the browser then shows the result page.
import { action, k8s, instancesPath } from './api.js';
import { process, processToApply, secretsOf } from './preview.js';
import { remember } from './results.js';
import { resultHref, instanceHref } from './routes.js';

export async function create({ template, entry, fields, values, labels, namespace, instanceName, instances, config }) {
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
  // The secret values stay in this tab's memory, for the result page to mask.
  const secrets = secretsOf(fields, values, list);
  const id = remember({ entry, namespace, message: list.message || '', generated, objects, secrets, coreAPI: config.coreAPI, created: new Date().toISOString() });
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

let probe;

// nothingCreated resolves to why Create would create nothing here, or to '' when it would create
// the objects (or cannot tell). With TemplateInstances, the server itself says: one without a
// cluster (local mode) marks every instance it stores NoCluster, which a dry run of one shows
// without storing anything, and which stays right when local mode is given a cluster to create
// in (--target-kubeconfig) though it serves no core API. The dry run names the template and no
// values, so no secret is sent for it. Without TemplateInstances, the catalog applies the
// objects itself, which a server without the core API cannot take. Asked once per page load:
// the answer is the server's, whatever the namespace.
export function nothingCreated(config, instances, namespace, template) {
  if (!instances) {
    return Promise.resolve(config.coreAPI ? '' : 'This server serves no core API (no namespaces, ConfigMaps or Deployments): it is a Stencil server in local mode, which renders templates only. Apply the preview\'s YAML to a cluster with kubectl, or run stencil ui with the cluster\'s kubeconfig.');
  }
  if (!probe) {
    namespace = namespace || template.metadata.namespace;
    const dryRun = { apiVersion: 'templates.stencil.dev/v1alpha1', kind: 'TemplateInstance',
      metadata: { generateName: 'stencil-ui-', namespace }, spec: { templateRef: { name: template.metadata.name } } };
    probe = k8s('POST', `${instancesPath(namespace)}?dryRun=All`, dryRun).then((ti) => {
      const noCluster = ((ti.status && ti.status.conditions) || []).some((c) => c.reason === 'NoCluster');
      return noCluster ? 'This server runs without a cluster (local mode): Create stores a TemplateInstance that records these values, and its objects are never created. To create them, apply the preview\'s YAML to a cluster with kubectl, or run stencil ui with the cluster\'s kubeconfig.' : '';
    }, () => '');
  }
  return probe;
}
