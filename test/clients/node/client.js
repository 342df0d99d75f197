// Drives Stencil with Kubernetes' JavaScript client (@kubernetes/client-node), reading the
// local kubeconfig as its users do: KubernetesObjectApi finds each resource by apiVersion and
// kind in discovery (an ambiguous kind would pick one of two), CustomObjectsApi by plural.
// Usage: node client.js KUBECONFIG NAMESPACE; prints "ok: ..." per step and exits 1 at the
// first that does not work.
"use strict";
const k8s = require("@kubernetes/client-node");

const GROUP = "templates.stencil.dev";
const VERSION = "v1alpha1";
const [kubeconfig, namespace] = process.argv.slice(2);

function check(cond, what) {
  if (!cond) {
    throw new Error("FAILED: " + what);
  }
  console.log("ok: " + what);
}

async function main() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);

  const template = {
    apiVersion: `${GROUP}/${VERSION}`, kind: "Template",
    metadata: { name: "js-template", namespace },
    parameters: [{ name: "REPLICAS", type: "int", value: "2", minimum: 1, maximum: 10 }],
    objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "js" }, data: { replicas: "${REPLICAS}" } }],
  };
  const created = await objects.create(template);
  check(created.kind === "Template" && created.metadata.name === "js-template", "create Template by kind");
  const read = await objects.read({ apiVersion: template.apiVersion, kind: "Template", metadata: { name: "js-template", namespace } });
  check(read.parameters[0].maximum === 10, "read Template by kind, the bound as written");
  const list = await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: "templates" });
  check(list.items.some((t) => t.metadata.name === "js-template"), "list Templates");

  const processed = await custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: "processedtemplates", body: template });
  check(processed.kind === "List" && processed.items[0].data.replicas === "2", "processedtemplates answers the List");

  const instance = await objects.create({
    apiVersion: `${GROUP}/${VERSION}`, kind: "TemplateInstance", metadata: { name: "js-instance", namespace },
    spec: { templateRef: { name: "js-template" }, parameters: { REPLICAS: "3" } },
  });
  check(instance.spec.parameters.REPLICAS === "3", "create TemplateInstance by kind");
  await objects.delete(instance);
  console.log("ok: delete TemplateInstance");

  const transform = await objects.create({
    apiVersion: `${GROUP}/${VERSION}`, kind: "CustomTransform", metadata: { name: "js-widgets" },
    spec: { apiGroup: "example.com", kind: "Widget", remove: ["$.spec.secret"] },
  });
  check(transform.metadata.name === "js-widgets", "create CustomTransform by kind");
  await objects.delete(transform);
  console.log("ok: delete CustomTransform");

  await objects.delete(created);
  console.log("ok: delete Template");
}

main().catch((err) => {
  console.log(err.body ? `${err.message}: ${JSON.stringify(err.body)}` : err.stack || String(err));
  process.exit(1);
});
