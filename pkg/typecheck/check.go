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

// Package typecheck checks the objects of a template against the OpenAPI schemas of their
// kinds before any value is given: unknown fields, values of the wrong JSON type (as written,
// or as substitution makes them: replicas: ${REPLICAS} is a string), required fields left out
// and values outside an enum. stencil lint runs it with the schemas the binary carries
// (kubeschemas), CRDs from files or a cluster's /openapi/v3; the store runs it against the
// cluster's when a Template is written.
package typecheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
)

// DefaultMaxFindings bounds the findings of one template: past it they are counted only.
const DefaultMaxFindings = 100

// Checker type-checks the objects of templates. It is safe for concurrent use when its
// Resolver is.
type Checker struct {
	// Resolver finds the schema of each object's kind.
	Resolver Resolver
	// Meta is the schema of an object's metadata for kinds whose schema leaves it open (a
	// CRD's is type: object), and MetaSet where its references resolve; nil checks no
	// metadata there.
	Meta    *Schema
	MetaSet *Set
	// MaxFindings bounds the findings of one template; 0 means DefaultMaxFindings.
	MaxFindings int
}

// Result is what the check found in one template.
type Result struct {
	Findings []Finding
	// Omitted counts the errors and warnings past MaxFindings.
	Omitted int
}

// Check type-checks the objects of t, written in dialect d.
func (c *Checker) Check(ctx context.Context, t *templates.Template, d process.Dialect) Result {
	r := &run{c: c, ctx: ctx, dialect: d, subs: process.NewSubstitutions(t, d),
		resolved: map[GroupVersionKind]resolved{}, views: map[*Schema]*view{}}
	r.max = c.MaxFindings
	if r.max <= 0 {
		r.max = DefaultMaxFindings
	}
	objects := field.NewPath("objects")
	for i, o := range t.Objects {
		if ctx.Err() != nil {
			break
		}
		r.object(objects.Index(i), o.Raw)
	}
	r.uncheckedNotes()
	return Result{Findings: r.findings, Omitted: r.omitted}
}

// CheckDocument type-checks one JSON object as it is written, without substitution, against
// its kind's schema: a Template file's own members (its objects are RawExtensions there,
// which the schema leaves open; Check looks into them). A document of a kind the Resolver
// does not know is not checked.
func (c *Checker) CheckDocument(ctx context.Context, doc []byte) Result {
	r := &run{c: c, ctx: ctx, resolved: map[GroupVersionKind]resolved{}, views: map[*Schema]*view{}, max: c.MaxFindings}
	if r.max <= 0 {
		r.max = DefaultMaxFindings
	}
	var h header
	if json.Unmarshal(doc, &h) != nil {
		return Result{}
	}
	kind, _ := h.Kind.(string)
	apiVersion, _ := h.APIVersion.(string)
	group, version := ParseAPIVersion(apiVersion)
	res, err := c.Resolver.Resolve(ctx, GroupVersionKind{Group: group, Version: version, Kind: kind})
	if err != nil || res.Schema == nil {
		return Result{}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var obj any
	if dec.Decode(&obj) != nil {
		return Result{}
	}
	w := walk{run: r, set: res.Set, kind: fmt.Sprintf("%s (%s)", kind, apiVersion)}
	w.value(nil, obj, res.Schema, res.Set, true)
	return Result{Findings: r.findings, Omitted: r.omitted}
}

// resolved is a kind's resolution within one check, and the objects of it left unchecked.
type resolved struct {
	Resolution
	err       error
	unchecked int
	first     *field.Path
}

// run is the state of one Check.
type run struct {
	c        *Checker
	ctx      context.Context
	dialect  process.Dialect
	subs     *process.Substitutions
	resolved map[GroupVersionKind]resolved
	// order lists the kinds in the order first met, for the notes.
	order    []GroupVersionKind
	views    map[*Schema]*view
	findings []Finding
	omitted  int
	max      int
}

// add records a finding, or counts it past the bound; a note past the bound (what was not
// checked) is dropped, so that the count is of problems only.
func (r *run) add(path *field.Path, severity Severity, rule Rule, format string, args ...any) {
	if len(r.findings) >= r.max {
		if severity != Note {
			r.omitted++
		}
		return
	}
	r.findings = append(r.findings, Finding{Path: path, Severity: severity, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// header is what the check reads of an object before its kind's schema.
type header struct {
	APIVersion any `json:"apiVersion"`
	Kind       any `json:"kind"`
	Metadata   struct {
		Annotations map[string]any `json:"annotations"`
	} `json:"metadata"`
}

// object checks one object of the template. One that is not valid JSON, or whose kind or
// apiVersion is not a literal string, is left to Compile and to processing.
func (r *run) object(path *field.Path, raw []byte) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var decoded any
	if dec.Decode(&decoded) != nil {
		return
	}
	obj, ok := decoded.(map[string]any)
	if !ok {
		return
	}
	kind, kindOK := r.literal(obj["kind"])
	apiVersion, versionOK := r.literal(obj["apiVersion"])
	if !kindOK || !versionOK || kind == "" || apiVersion == "" {
		return
	}
	apiVersion = process.ObjectAPIVersion(apiVersion, kind, r.dialect)
	group, version := ParseAPIVersion(apiVersion)
	gvk := GroupVersionKind{Group: group, Version: version, Kind: kind}
	res, seen := r.resolved[gvk]
	if !seen {
		res.Resolution, res.err = r.c.Resolver.Resolve(r.ctx, gvk)
		r.order = append(r.order, gvk)
	}
	if res.Schema == nil {
		if res.unchecked == 0 {
			res.first = path
		}
		res.unchecked++
		r.resolved[gvk] = res
		return
	}
	r.resolved[gvk] = res
	subs := r.subs
	if forEach(obj) && r.dialect == process.Stencil {
		subs = subs.ForEach()
	}
	w := walk{run: r, subs: subs, set: res.Set, kind: fmt.Sprintf("%s (%s)", kind, apiVersion)}
	w.value(path, obj, res.Schema, res.Set, true)
}

// forEach reports whether an object carries the for-each annotation, whose objects name
// their element and index.
func forEach(obj map[string]any) bool {
	meta, _ := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	_, ok := annotations[templates.ForEachAnnotation]
	return ok
}

// literal returns a kind or apiVersion that processing writes as it is.
func (r *run) literal(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	sub := r.subs.Value(s)
	return sub.Text, sub.Kind == process.Literal
}

// uncheckedNotes reports, once per kind, the objects no schema describes: a kind its group
// does not serve is a warning, a kind of a group no source knows a note.
func (r *run) uncheckedNotes() {
	for _, gvk := range r.order {
		res := r.resolved[gvk]
		if res.unchecked == 0 {
			continue
		}
		name := fmt.Sprintf("%s (%s)", gvk.Kind, gvk.APIVersion())
		objects := "1 object"
		if res.unchecked > 1 {
			objects = fmt.Sprintf("%d objects, the first here,", res.unchecked)
		}
		switch {
		case res.err != nil:
			r.add(res.first, Note, Unchecked, "%s of kind %s not type-checked: %v", objects, name, res.err)
		case res.GroupKnown && len(res.Versions) > 0:
			r.add(res.first.Child("apiVersion"), Warning, UnknownKind, "%s does not serve %s in %s; it serves it in %s",
				res.Source, gvk.Kind, gvk.APIVersion(), strings.Join(apiVersions(gvk.Group, res.Versions), ", "))
		case res.GroupKnown:
			r.add(res.first.Child("kind"), Warning, UnknownKind, "%s serves no kind %s in group %q", res.Source, gvk.Kind, gvk.Group)
		default:
			r.add(res.first, Note, Unchecked, "%s of kind %s not type-checked: no schema of it (CRDs: --schema-dir or --server)", objects, name)
		}
	}
}

// apiVersions writes the versions of group as apiVersions.
func apiVersions(group string, versions []string) []string {
	out := make([]string, len(versions))
	for i, v := range versions {
		out[i] = GroupVersionKind{Group: group, Version: v}.APIVersion()
	}
	sort.Strings(out)
	return out
}
