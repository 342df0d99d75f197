# Drives Stencil with Python's kubernetes dynamic client (Debian's python3-kubernetes), the way
# Ansible's kubernetes.core.k8s module does: every resource is looked up by apiVersion and kind
# in discovery, then read, created, patched, applied, listed and deleted through it.
# Usage: dynamic_client.py KUBECONFIG NAMESPACE; prints one "ok: ..." line per step, and fails
# with a traceback at the first step that does not work.
import json
import sys

from kubernetes import config
from kubernetes.client import api_client
from kubernetes.dynamic import DynamicClient
from kubernetes.dynamic.exceptions import NotFoundError

GROUP = "templates.stencil.dev/v1alpha1"
kubeconfig, ns = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=kubeconfig)
client = DynamicClient(api_client.ApiClient())


def lookup(kind):
    # Ansible's find_resource asks by kind first: an ambiguous kind raises
    # ResourceNotUniqueError here.
    resource = client.resources.get(api_version=GROUP, kind=kind)
    print("ok: kind %s is resource %s" % (kind, resource.name))
    return resource


def check(cond, what):
    if not cond:
        raise SystemExit("FAILED: " + what)
    print("ok: " + what)


templates = lookup("Template")
instances = lookup("TemplateInstance")
transforms = lookup("CustomTransform")
processed = lookup("ProcessedTemplate")
check(templates.name == "templates" and processed.name == "processedtemplates", "kinds map to their own resources")

template = {
    "apiVersion": GROUP,
    "kind": "Template",
    "metadata": {"name": "py-redis"},
    "parameters": [
        {"name": "NAME", "value": "redis"},
        {"name": "REPLICAS", "type": "int", "value": "2", "minimum": 1, "maximum": 10},
    ],
    "objects": [{
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "${NAME}"},
        "spec": {"replicas": "${{REPLICAS}}"},
    }],
}

# state: present on an absent object: get (404), then create.
try:
    templates.get(name="py-redis", namespace=ns)
    raise SystemExit("FAILED: py-redis exists before the test")
except NotFoundError:
    print("ok: get of an absent template is NotFoundError")
created = templates.create(body=template, namespace=ns)
check(created.metadata.name == "py-redis" and created.kind == "Template", "create Template")
got = templates.get(name="py-redis", namespace=ns)
check(got.parameters[1].maximum == 10, "get Template keeps the bound as written (%r)" % got.parameters[1].maximum)

# state: present on an existing object: a merge patch, as the module sends for an API it has
# no strategic-merge schema for.
patched = templates.patch(name="py-redis", namespace=ns, content_type="application/merge-patch+json",
                          body={"metadata": {"labels": {"team": "py"}}})
check(patched.metadata.labels.team == "py", "merge patch Template")
# Debian's client (22.6) sends a server-side apply body only as a string: it cannot encode a
# dict as application/apply-patch+yaml (kubernetes-client/python#1850 fixed that later); JSON
# is YAML.
applied = client.server_side_apply(templates, name="py-redis", namespace=ns, field_manager="ansible", force_conflicts=True,
                                   body=json.dumps(dict(template, metadata={"name": "py-redis", "annotations": {"owner": "ansible"}})))
check(applied.metadata.annotations.owner == "ansible", "server-side apply Template")
names = [item.metadata.name for item in templates.get(namespace=ns).items]
check("py-redis" in names, "list Templates")

# Processing: the processed subresource of a stored template and processedtemplates.
out = templates.subresources["processed"].create(name="py-redis", namespace=ns, body={
    "apiVersion": GROUP, "kind": "TemplateParameters", "parameters": {"NAME": "cache", "REPLICAS": "3"}})
check(out.kind == "List" and out.items[0].metadata.name == "cache" and out.items[0].spec.replicas == 3,
      "templates/processed answers the List")
inline = dict(template, metadata={"name": "inline"})
inline["parameters"] = [dict(template["parameters"][0], value="inline"), template["parameters"][1]]
out = processed.create(body=inline, namespace=ns)
check(out.kind == "List" and out.items[0].metadata.name == "inline", "processedtemplates answers the List")
# The schema is a JSON Schema document, not an object with a kind: read it unserialized.
schema = json.loads(client.request("get", templates.subresources["schema"].path(name="py-redis", namespace=ns), serialize=False).data)
check(schema["properties"]["REPLICAS"]["maximum"] == 10, "templates/schema holds the bound as a number")

# TemplateInstance: stored as given (local mode has no cluster to apply to).
instance = instances.create(namespace=ns, body={
    "apiVersion": GROUP, "kind": "TemplateInstance", "metadata": {"name": "py-instance"},
    "spec": {"templateRef": {"name": "py-redis"}, "parameters": {"REPLICAS": "4"}}})
check(instance.spec.templateRef.name == "py-redis", "create TemplateInstance")
check(instances.get(name="py-instance", namespace=ns).spec.parameters.REPLICAS == "4", "get TemplateInstance")
check([i.metadata.name for i in instances.get(namespace=ns).items] == ["py-instance"], "list TemplateInstances")
instances.delete(name="py-instance", namespace=ns)
print("ok: delete TemplateInstance")

# CustomTransform: cluster-scoped.
ct = transforms.create(body={
    "apiVersion": GROUP, "kind": "CustomTransform", "metadata": {"name": "py-widgets"},
    "spec": {"apiGroup": "example.com", "kind": "Widget", "remove": ["$.spec.secret"]}})
check(ct.metadata.name == "py-widgets", "create CustomTransform")
check(transforms.get(name="py-widgets").spec.remove == ["$.spec.secret"], "get CustomTransform")
check("py-widgets" in [i.metadata.name for i in transforms.get().items], "list CustomTransforms")
transforms.delete(name="py-widgets")
print("ok: delete CustomTransform")

templates.delete(name="py-redis", namespace=ns)
print("ok: delete Template")
print(json.dumps({"done": True}))
