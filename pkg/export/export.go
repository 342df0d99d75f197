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

package export

import (
	"fmt"
	"strings"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/transform"
)

// Object is one object read from the cluster, as unstructured.Unstructured holds it.
type Object = transform.Object

// Options say what template Export makes.
type Options struct {
	// Name is the Template's metadata.name.
	Name string
	// Parameterize turns the namespace, the application's name, the images and the replica
	// counts into parameters; without it they stay as they were read.
	Parameterize bool
	// IncludeSecretValues writes Secret values into the template instead of making each one a
	// required parameter.
	IncludeSecretValues bool
}

// Skipped is an object left out of the template, and why.
type Skipped struct {
	// Object names it as "apps/v1 ReplicaSet web-5d4f".
	Object string
	// Reason says what creates it instead.
	Reason string
}

// Result is the template and what Export reports beside it.
type Result struct {
	Template *templates.Template
	// Skipped are the objects left out, in the order they were given.
	Skipped []Skipped
	// Warnings are fields the cleanup met with an unexpected type and left as they were, and
	// a parameterised export that found no application name.
	Warnings []string
	// Escaped names the objects with text that processing would have read as a reference, now
	// escaped as $${...}: Stencil reads it back as it was, OpenShift's processor does not.
	Escaped []string
}

// NothingToExportError is the answer to an export that would make a template without
// objects: nothing was read, or every object read is made by something else. A template of
// nothing re-creates nothing, so it is an error rather than an empty Template.
type NothingToExportError struct {
	// Skipped are the objects read and left out, each with its reason; empty when nothing was
	// read.
	Skipped []Skipped
}

func (e *NothingToExportError) Error() string {
	if len(e.Skipped) == 0 {
		return "nothing to export: no objects were read"
	}
	reasons := make([]string, len(e.Skipped))
	for i, s := range e.Skipped {
		reasons[i] = s.Object + ": " + s.Reason
	}
	return fmt.Sprintf("nothing to export: each of the %d objects read is made by something else, which re-creates it:\n  * %s",
		len(e.Skipped), strings.Join(reasons, "\n  * "))
}

// Export makes a Template of objects read from one namespace. It edits the objects in place.
// When no object is left to put in the template it returns a *NothingToExportError.
func Export(objects []Object, opts Options) (*Result, error) {
	kept, skipped := selectObjects(objects)
	if len(kept) == 0 {
		return nil, &NothingToExportError{Skipped: skipped}
	}
	ctx := &transform.Context{}
	for _, obj := range kept {
		clean(ctx, obj)
		removeDefaults(obj)
	}
	sortForCreation(kept)
	p := newPlanner()
	if opts.Parameterize {
		p.appName = detectName(kept)
		p.dropNamespace(kept)
		if p.appName != "" {
			p.name(kept)
		}
		p.imagesAndReplicas(kept)
	}
	if !opts.IncludeSecretValues {
		p.secrets(kept)
	}
	t, escaped, err := p.template(opts.Name, kept)
	if err != nil {
		return nil, err
	}
	warnings := ctx.Warnings()
	if opts.Parameterize && p.appName == "" {
		warnings = append(warnings, "no application name found (no one app.kubernetes.io/instance or app label value, "+
			"no name prefix every object shares): the names stay as they are, with no NAME parameter")
	}
	return &Result{Template: t, Skipped: skipped, Warnings: warnings, Escaped: escaped}, nil
}

// describe names an object in reports: "apps/v1 Deployment web".
func describe(obj Object) string {
	return transform.NestedString(obj, "apiVersion") + " " + transform.NestedString(obj, "kind") + " " + transform.NestedString(obj, "metadata", "name")
}

// group returns the API group of an object, "" for the core group.
func group(obj Object) string {
	if g, _, ok := strings.Cut(transform.NestedString(obj, "apiVersion"), "/"); ok {
		return g
	}
	return ""
}

// isKind reports whether obj is of the kind in the group.
func isKind(obj Object, g, kind string) bool {
	return transform.NestedString(obj, "kind") == kind && group(obj) == g
}

// list returns the list at path, or nil.
func list(m map[string]any, path ...string) []any {
	l, _ := transform.NestedValue(m, path...).([]any)
	return l
}

// deleteKeys deletes keys from the map at path, and the map itself when that empties it.
func deleteKeys(m map[string]any, path []string, keys ...string) {
	parent := transform.NestedMap(m, path[:len(path)-1]...)
	target, _ := parent[path[len(path)-1]].(map[string]any)
	if target == nil {
		return
	}
	for _, k := range keys {
		delete(target, k)
	}
	if len(target) == 0 {
		delete(parent, path[len(path)-1])
	}
}

// podTemplatePaths are where each workload kind keeps its pod template, by group and kind.
var podTemplatePaths = map[string][]string{
	"apps/Deployment":        {"spec", "template"},
	"apps/ReplicaSet":        {"spec", "template"},
	"apps/StatefulSet":       {"spec", "template"},
	"apps/DaemonSet":         {"spec", "template"},
	"/ReplicationController": {"spec", "template"},
	"/PodTemplate":           {"template"},
	"batch/Job":              {"spec", "template"},
	"batch/CronJob":          {"spec", "jobTemplate", "spec", "template"},
}

// podTemplates returns the pod templates of obj (metadata and spec), or, for a Pod, the Pod.
func podTemplates(obj Object) []map[string]any {
	if isKind(obj, "", "Pod") {
		return []map[string]any{obj}
	}
	path, ok := podTemplatePaths[group(obj)+"/"+transform.NestedString(obj, "kind")]
	if !ok {
		return nil
	}
	if t := transform.NestedMap(obj, path...); t != nil {
		return []map[string]any{t}
	}
	return nil
}

// containers returns every container of a pod spec, init containers first.
func containers(spec map[string]any) []map[string]any {
	var out []map[string]any
	for _, key := range []string{"initContainers", "containers"} {
		for _, c := range list(spec, key) {
			if c, ok := c.(map[string]any); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// fieldError reports a template that the server would refuse; it lists every problem.
type fieldError struct {
	problems []string
}

func (e *fieldError) Error() string {
	return fmt.Sprintf("the exported template is not valid:\n  * %s", strings.Join(e.problems, "\n  * "))
}
