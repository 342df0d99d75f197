/*
Copyright The Stencil Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package builtin

import (
	"encoding/json"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
)

// KubeStellar annotations and the server-populated fields its cleanup removes.
const (
	// LastAppliedAnnotation is kubectl's client-side apply record; it describes another
	// cluster's object, so it must not travel with the copy.
	LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	// PreserveAnnotation lists, comma-separated, what CleanupTransformer must keep; the only
	// value it knows is "nodeport".
	PreserveAnnotation = "control.kubestellar.io/preserve"
	// JobTrackingAnnotation is set by the Job controller of the cluster that ran the Job.
	JobTrackingAnnotation = "batch.kubernetes.io/job-tracking"
)

// cleanupMetadataFields are written by the API server or controllers of the source cluster;
// applying them elsewhere fails (uid, resourceVersion) or means something else (ownerReferences).
var cleanupMetadataFields = []string{
	"managedFields", "finalizers", "generation", "ownerReferences",
	"selfLink", "resourceVersion", "uid", "generateName",
}

// cleanupServiceSpecFields are defaulted or allocated by the source cluster; the destination
// defaults them again for its own network.
var cleanupServiceSpecFields = []string{
	"ipFamilies", "externalTrafficPolicy", "internalTrafficPolicy", "ipFamilyPolicy", "sessionAffinity",
}

// jobControllerLabels are the Job controller's selector labels, tied to the source Job's uid.
var jobControllerLabels = []string{"controller-uid", "batch.kubernetes.io/controller-uid"}

// cleanupTransformer is the CleanupTransformer built-in; it has no options.
type cleanupTransformer struct{}

func newCleanupTransformer(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var cfg struct {
		transform.ConfigMeta `json:",inline"`
	}
	if errs := transform.DecodeConfig(config, &cfg, fldPath); len(errs) > 0 {
		return nil, errs
	}
	return cleanupTransformer{}, nil
}

// Transform cleans every object in place.
func (cleanupTransformer) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	for _, obj := range objects {
		CleanObject(ctx, obj)
	}
	return objects, nil
}

// CleanObject removes from obj what the cluster it was read from populated, so that it can be
// applied to another cluster: KubeStellar's destination-independent cleanup, with its quirks
// fixed. CleanupTransformer runs it over the objects it is given, stencil export over the
// objects it reads, so that both follow one set of rules. Fields are deleted, never set to null; a field of an unexpected type is left as it is
// and reported through ctx, and one bad annotation never costs the others; a map that the
// cleanup empties (annotations, labels) is removed rather than left as {}. ctx may be nil.
func CleanObject(ctx *transform.Context, obj transform.Object) {
	c := cleaner{ctx: ctx, obj: obj}
	meta := c.object(obj, "metadata", field.NewPath("metadata"))
	for _, f := range cleanupMetadataFields {
		delete(meta, f)
	}
	annotationsPath := field.NewPath("metadata", "annotations")
	annotations := c.object(meta, "annotations", annotationsPath)
	for _, k := range sortedKeys(annotations) {
		if _, ok := annotations[k].(string); !ok {
			c.warn(annotationsPath.Key(k), annotations[k], "a string")
		}
	}
	c.deleteKeys(meta, "annotations", annotationsPath, LastAppliedAnnotation)
	delete(obj, "status")

	switch transform.GVKOf(obj) {
	case transform.GVK{Group: "", Version: "v1", Kind: "Service"}:
		c.service(annotations)
	case transform.GVK{Group: "batch", Version: "v1", Kind: "Job"}:
		c.job(meta)
	}
}

// cleaner carries the object being cleaned, for warnings.
type cleaner struct {
	ctx *transform.Context
	obj transform.Object
}

func (c cleaner) warn(path *field.Path, value any, want string) {
	if c.ctx == nil {
		return // a caller that does not collect warnings
	}
	c.ctx.Warnf("cleanup: %s: %s is %s, not %s; left unchanged", transform.Describe(c.obj), path, jsonTypeOf(value), want)
}

// object returns parent[key] when it is an object. A missing or null value is nil without a
// warning: both mean "unset" in Kubernetes.
func (c cleaner) object(parent map[string]any, key string, path *field.Path) map[string]any {
	v, ok := parent[key]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		c.warn(path, v, "an object")
	}
	return m
}

// deleteKeys deletes keys from the map parent[key], and the map itself if that empties it.
func (c cleaner) deleteKeys(parent map[string]any, key string, path *field.Path, keys ...string) {
	m := c.object(parent, key, path)
	if len(m) == 0 {
		return
	}
	for _, k := range keys {
		delete(m, k)
	}
	if len(m) == 0 {
		delete(parent, key)
	}
}

func (c cleaner) service(annotations map[string]any) {
	specPath := field.NewPath("spec")
	spec := c.object(c.obj, "spec", specPath)
	if spec == nil {
		return
	}
	for _, f := range cleanupServiceSpecFields {
		delete(spec, f)
	}

	// A headless Service ("None") must stay headless; any other address belongs to the
	// source cluster's service network.
	switch ip := spec["clusterIP"].(type) {
	case nil:
	case string:
		if ip != "None" {
			delete(spec, "clusterIP")
		}
	default:
		c.warn(specPath.Child("clusterIP"), ip, "a string")
	}

	if ips, ok := spec["clusterIPs"]; ok && ips != nil {
		if list, ok := stringList(ips); !ok {
			c.warn(specPath.Child("clusterIPs"), ips, "a list of strings")
		} else if slices.Contains(list, "None") {
			spec["clusterIPs"] = []any{"None"}
		} else {
			delete(spec, "clusterIPs")
		}
	}

	if preserves(annotations, "nodeport") {
		return
	}
	portsPath := specPath.Child("ports")
	switch ports := spec["ports"].(type) {
	case nil:
	case []any:
		for i, p := range ports {
			switch p := p.(type) {
			case nil:
			case map[string]any:
				delete(p, "nodePort")
			default:
				c.warn(portsPath.Index(i), p, "an object")
			}
		}
	default:
		c.warn(portsPath, ports, "a list")
	}
}

func (c cleaner) job(meta map[string]any) {
	c.deleteKeys(meta, "annotations", field.NewPath("metadata", "annotations"), JobTrackingAnnotation)
	c.deleteKeys(meta, "labels", field.NewPath("metadata", "labels"), jobControllerLabels...)
	specPath := field.NewPath("spec")
	spec := c.object(c.obj, "spec", specPath)
	if spec == nil {
		return
	}
	// The selector is generated from the source Job's uid; suspend is the source cluster's
	// scheduling state. Both are KubeStellar's choices, kept for compatibility.
	delete(spec, "selector")
	delete(spec, "suspend")
	templatePath := specPath.Child("template")
	template := c.object(spec, "template", templatePath)
	templateMeta := c.object(template, "metadata", templatePath.Child("metadata"))
	c.deleteKeys(templateMeta, "labels", templatePath.Child("metadata", "labels"), jobControllerLabels...)
}

// preserves reports whether the preserve annotation lists what: a comma-separated list,
// compared case-insensitively after trimming spaces (KubeStellar matches the whole value
// exactly, so "NodePort" and "nodeport,other" preserve nothing there).
func preserves(annotations map[string]any, what string) bool {
	list, _ := annotations[PreserveAnnotation].(string)
	for item := range strings.SplitSeq(list, ",") {
		if strings.EqualFold(strings.TrimSpace(item), what) {
			return true
		}
	}
	return false
}

// stringList returns v as strings when it is a list of strings only.
func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(list))
	for i, e := range list {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// sortedKeys returns m's keys in order, so that warnings come out in a stable order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonTypeOf names the JSON type of a decoded value, with an article, for messages.
func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64, int64, int:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "a value"
}
