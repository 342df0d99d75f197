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

package preview

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/redact"
)

// maxFields bounds the fields listed per object, maxValue the bytes shown of a value: a
// preview of a thousand instances must stay readable and within its memory.
const (
	maxFields = 100
	maxValue  = 512
)

// masker hides the values a preview never shows: every field of a Secret's data and
// stringData, and every value holding a secret value of the instance (redact's rule: values
// read from Secrets, generated values, parameters marked secret...), found in the decoded
// values, never in their JSON text.
type masker struct {
	set  *redact.Set
	used bool
}

// hides says whether a field at path of an object of kind, whose decoded value is value,
// must be masked.
func (m *masker) hides(kind, path string, value leaf) bool {
	if kind == "Secret" && (strings.HasPrefix(path, ".data") || strings.HasPrefix(path, ".stringData")) {
		return true
	}
	return m.set.Holds(value.text)
}

// hide replaces, in a text the answer shows (a message, a cause, an object's name, a path),
// every secret value it holds, in any spelling.
func (m *masker) hide(text string) string {
	out, changed := m.set.Scrub(text)
	m.used = m.used || changed
	return out
}

// scrub hides the secret values in every text of one instance's preview; the fields' values
// are masked whole as they are listed (field).
func (m *masker) scrub(i *templates.InstancePreview) {
	i.Message = m.hide(i.Message)
	for k := range i.Causes {
		i.Causes[k].Message, i.Causes[k].Field = m.hide(i.Causes[k].Message), m.hide(i.Causes[k].Field)
	}
	for k := range i.Objects {
		o := &i.Objects[k]
		o.Name, o.Namespace = m.hide(o.Name), m.hide(o.Namespace)
		for f := range o.Fields {
			o.Fields[f].Path = m.hide(o.Fields[f].Path)
		}
	}
	i.Masked = i.Masked || m.used
}

// field is one field change, masked as needed.
func (m *masker) field(kind, path, change string, before, after leaf) templates.FieldChange {
	b, a := before.json, after.json
	if m.hides(kind, path, before) || m.hides(kind, path, after) {
		m.used = true
		if b != "" {
			b = redact.Masked
		}
		if a != "" {
			a = redact.Masked
		}
	}
	return templates.FieldChange{Path: path, Change: change, Before: clip(b), After: clip(a)}
}

func clip(s string) string {
	if len(s) > maxValue {
		return s[:maxValue] + "..."
	}
	return s
}

// changes compares the objects the instance runs now with the candidate's, by object; the
// instance's own Secret of generated values is bookkeeping, not compared.
func changes(before, after []*instance.Planned, m *masker) []templates.ObjectChange {
	old := map[string]*instance.Planned{}
	for _, p := range before {
		if !p.Generated {
			old[inventory.ObjectKey(p.Ref)] = p
		}
	}
	var out []templates.ObjectChange
	for _, p := range after {
		if p.Generated {
			continue
		}
		key := inventory.ObjectKey(p.Ref)
		prev, ok := old[key]
		delete(old, key)
		if !ok {
			out = append(out, objectChange(p.Ref, "Added", nil))
			continue
		}
		if fields := diffObjects(p.Ref.Kind, prev.Obj.Object, p.Obj.Object, m); len(fields) > 0 {
			out = append(out, objectChange(p.Ref, "Changed", fields))
		}
	}
	for _, p := range before {
		if _, ok := old[inventory.ObjectKey(p.Ref)]; ok {
			out = append(out, objectChange(p.Ref, "Removed", nil))
		}
	}
	return out
}

func objectChange(ref templatesv1.TemplateInstanceObject, change string, fields []templates.FieldChange) templates.ObjectChange {
	return templates.ObjectChange{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, Change: change, Fields: fields}
}

// liveChanges compares each candidate object with what a server-side dry-run apply as the
// requester makes of the live one; an object the instance does not own, or one the cluster
// refuses, fails the instance as the controller's preflight would.
func (s *previewState) liveChanges(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, plan []*instance.Planned, m *masker) ([]templates.ObjectChange, error) {
	id := inventory.ApplySetID(ti.Namespace, ti.Name)
	var out []templates.ObjectChange
	var refused []string
	// The caller sees what the live objects hold only of objects the caller may get.
	var hidden []string
	for _, p := range plan {
		if p.Generated {
			continue
		}
		allowed, _, err := s.planner.Ask(ctx, authorizer.AttributesRecord{User: s.caller, Verb: "get", APIGroup: p.Resource.Group,
			APIVersion: p.Resource.Version, Resource: p.Resource.Resource, Namespace: p.Ref.Namespace, Name: p.Ref.Name, ResourceRequest: true})
		if err != nil {
			return nil, err
		}
		if !allowed {
			hidden = append(hidden, p.String())
		}
	}
	if len(hidden) > 0 {
		return nil, instance.Fail("Forbidden", "%s may not get %s: a live preview shows nothing of an instance whose live objects its "+
			"caller may not read", s.caller.GetName(), strings.Join(hidden, ", "))
	}
	for _, p := range plan {
		if p.Generated {
			continue
		}
		live, err := a.Get(ctx, p.Object())
		switch {
		case apierrors.IsNotFound(err):
			live = nil
		case err != nil && instance.IsRefusal(err):
			refused = append(refused, fmt.Sprintf("%s: %s", p, instance.StatusMessage(err)))
			continue
		case err != nil:
			return nil, err
		case live.GetLabels()[inventory.PartOfLabel] != id:
			refused = append(refused, fmt.Sprintf("%s: exists and was not created by this instance", p))
			continue
		}
		after, err := a.Apply(ctx, p.Object(), p.Obj, true)
		if err != nil {
			if !instance.IsRefusal(err) {
				return nil, err
			}
			refused = append(refused, fmt.Sprintf("%s: %s", p, instance.StatusMessage(err)))
			continue
		}
		if live == nil {
			out = append(out, objectChange(p.Ref, "Added", nil))
			continue
		}
		if fields := diffObjects(p.Ref.Kind, withoutWrites(live), withoutWrites(after), m); len(fields) > 0 {
			out = append(out, objectChange(p.Ref, "Changed", fields))
		}
	}
	if len(refused) > 0 {
		return nil, instance.Fail("DryRunFailed", "refused: %s", strings.Join(refused, "; "))
	}
	return out, nil
}

// withoutWrites is a live object without what every write changes and the status.
func withoutWrites(u *unstructured.Unstructured) map[string]interface{} {
	obj := u.DeepCopy().Object
	for _, f := range []string{"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink"} {
		unstructured.RemoveNestedField(obj, "metadata", f)
	}
	delete(obj, "status")
	return obj
}

// diffObjects lists the leaf fields that differ between before and after, by path.
func diffObjects(kind string, before, after map[string]interface{}, m *masker) []templates.FieldChange {
	a, b := map[string]leaf{}, map[string]leaf{}
	flatten("", before, a)
	flatten("", after, b)
	paths := make([]string, 0, len(a)+len(b))
	for p := range a {
		paths = append(paths, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out []templates.FieldChange
	for _, p := range paths {
		x, inA := a[p]
		y, inB := b[p]
		var f templates.FieldChange
		switch {
		case !inA:
			f = m.field(kind, p, "Added", leaf{}, y)
		case !inB:
			f = m.field(kind, p, "Removed", x, leaf{})
		case x.json != y.json:
			f = m.field(kind, p, "Changed", x, y)
		default:
			continue
		}
		if len(out) == maxFields {
			out = append(out, templates.FieldChange{Path: "...", Change: "Truncated", After: fmt.Sprintf("more than %d fields differ", maxFields)})
			break
		}
		out = append(out, f)
	}
	return out
}

// leaf is one leaf value of an object: its JSON, as a preview shows it, and its decoded text
// (a string as it is, any other value as its JSON), which masking reads.
type leaf struct {
	json, text string
}

// plainKey says a member name is written .name in a path: letters, digits, _ and -, not
// starting with a digit or -; any other is written ["name"].
func plainKey(k string) bool {
	for i, r := range k {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || (r != '-' && (r < '0' || r > '9'))) {
			return false
		}
	}
	return k != ""
}

// flatten writes every leaf of v (scalars, empty maps and lists) by its path.
func flatten(path string, v interface{}, out map[string]leaf) {
	switch v := v.(type) {
	case map[string]interface{}:
		if len(v) == 0 && path != "" {
			out[path] = leaf{"{}", "{}"}
		}
		for k, e := range v {
			if plainKey(k) {
				flatten(path+"."+k, e, out)
			} else {
				flatten(path+"["+strconv.Quote(k)+"]", e, out)
			}
		}
	case []interface{}:
		if len(v) == 0 {
			out[path] = leaf{"[]", "[]"}
		}
		for i, e := range v {
			flatten(path+"["+strconv.Itoa(i)+"]", e, out)
		}
	default:
		data, err := json.Marshal(v)
		if err != nil {
			data = []byte(fmt.Sprint(v))
		}
		text := string(data)
		if s, ok := v.(string); ok {
			text = s
		}
		out[path] = leaf{json: string(data), text: text}
	}
}
