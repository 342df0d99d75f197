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

// Package expand runs template expansion, KubeStellar's last step of processing: string values
// of opted-in objects executed as Go text/template over the request's properties. It is not a
// list transformer: it runs once per destination after the pipeline and the CustomTransforms,
// on the objects they leave. It is a pure library: it imports nothing from the server.
package expand

import (
	"errors"
	"fmt"
	"go/token"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/transform"
)

// TemplatesAnnotation opts an object into template expansion when its value is "true".
const TemplatesAnnotation = "control.kubestellar.io/expand-templates"

// Limits bounds the cost of one Templates call. A template comes from whoever sends the
// request, so neither its output nor its running time may grow without bound (KubeStellar
// has no limit: kubestellar/kubestellar#3737). Zero fields take the defaults (DefaultLimits).
type Limits struct {
	// MaxOutputBytes bounds the total size of all expanded strings.
	MaxOutputBytes int
	// MaxWork bounds the evaluation effort, in bytes handled: every byte written, built by a
	// function or compared counts one, every template node evaluated counts
	// expandNodeCost. Loops and template calls are charged per iteration and call, so
	// `{{range 1000000000}}{{end}}` fails quickly.
	MaxWork int
}

// DefaultLimits are the limits of a run given none: the expansion bounds of
// transform.DefaultLimits, where the server's flags start too.
func DefaultLimits() Limits {
	d := transform.DefaultLimits()
	return Limits{MaxOutputBytes: d.ExpansionOutputBytes, MaxWork: d.ExpansionWork}
}

// Templates runs template expansion, the last step of processing: in every object annotated
// TemplatesAnnotation: "true", every string value containing "{{" is executed as a Go
// text/template over properties, and replaced by its output. Map keys are not expanded and
// the annotation stays, as in KubeStellar.
//
// Templates run with missingkey=error, so a property that is not defined is an error, and
// with the default functions of text/template only, except that index on a missing key is an
// error too (KubeStellar returns ""). "clusterName" is always defined, empty unless given.
//
// Because templates come from the caller, the run is bounded (see Limits), templates
// may not call themselves recursively, and one string may hold at most 1000 control
// structures; KubeStellar has none of these limits.
//
// Every failure is reported with the field path of the string (objects[i].data.key) and the
// object's apiVersion, kind and name. Objects are only changed when there is no error:
// nothing partial is returned.
func Templates(objects []transform.Object, properties map[string]string, limits Limits) field.ErrorList {
	e := newExpander(properties, limits)
	var errs field.ErrorList
	root := field.NewPath("objects")
	for i, obj := range objects {
		metadata, _ := obj["metadata"].(map[string]any)
		annotations, _ := metadata["annotations"].(map[string]any)
		if v, _ := annotations[TemplatesAnnotation].(string); v != "true" {
			continue
		}
		e.obj = obj
		e.walk(obj, root.Index(i), &errs)
		if e.exhausted {
			break // every later string would fail the same way
		}
	}
	if len(errs) > 0 {
		return errs
	}
	for _, ed := range e.edits {
		if ed.m != nil {
			ed.m[ed.key] = ed.value
		} else {
			ed.list[ed.index] = ed.value
		}
	}
	return nil
}

// expandEdit is one string to replace, recorded while walking so that nothing changes until
// every template has run.
type expandEdit struct {
	m     map[string]any
	key   string
	list  []any
	index int
	value string
}

// walk expands the strings under node. Map keys are visited in order so that errors, and
// the place where a limit is hit, do not depend on map iteration order.
func (e *expander) walk(node any, path *field.Path, errs *field.ErrorList) {
	switch n := node.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(n)) {
			child := expandChildPath(path, k)
			if s, ok := n[k].(string); ok {
				if out, changed := e.expand(s, child, errs); changed {
					e.edits = append(e.edits, expandEdit{m: n, key: k, value: out})
				}
			} else {
				e.walk(n[k], child, errs)
			}
			if e.exhausted {
				return
			}
		}
	case []any:
		for i, v := range n {
			if s, ok := v.(string); ok {
				if out, changed := e.expand(s, path.Index(i), errs); changed {
					e.edits = append(e.edits, expandEdit{list: n, index: i, value: out})
				}
			} else {
				e.walk(v, path.Index(i), errs)
			}
			if e.exhausted {
				return
			}
		}
	}
}

// expandChildPath names a map entry as Kubernetes does: data.greeting for a key that reads as
// a field name, metadata.annotations[example.com/x] for any other.
func expandChildPath(path *field.Path, key string) *field.Path {
	if key != "" && strings.IndexFunc(key, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return path.Child(key)
	}
	return path.Key(key)
}

// expand runs one string as a template. It returns the output and whether the string is a
// template at all; failures go to errs.
func (e *expander) expand(s string, path *field.Path, errs *field.ErrorList) (string, bool) {
	if !strings.Contains(s, "{{") {
		return s, false
	}
	out, err := e.execute(path.String(), s)
	if err == nil {
		return out, true
	}
	var detail string
	switch {
	case errors.Is(err, errExpandOutput):
		e.exhausted = true
		detail = fmt.Sprintf("template expansion output exceeds the limit of %d bytes", e.maxOutput)
	case errors.Is(err, errExpandWork):
		e.exhausted = true
		detail = fmt.Sprintf("template expansion exceeds its work limit (%d); a loop or template call runs too long", e.maxWork)
	default:
		detail = err.Error()
	}
	*errs = append(*errs, field.Invalid(path, expandShorten(s), transform.Describe(e.obj)+": "+detail))
	return "", false
}

// expandShorten cuts a template echoed in an error to a readable length; the path already
// says where it is.
func expandShorten(s string) string {
	const limit = 256
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// execute parses and runs one template, named after its field path so that text/template's
// own messages point at it too.
func (e *expander) execute(name, text string) (string, error) {
	if n := expandCountControls(text); n > expandMaxControls {
		return "", fmt.Errorf("the template has %d control structures (if, with, range, else, define, block); at most %d are allowed", n, expandMaxControls)
	}
	root, err := e.root.Clone()
	if err != nil {
		return "", err
	}
	t, err := root.New(name).Parse(text)
	if err != nil {
		return "", err
	}
	if err := e.instrument(t); err != nil {
		return "", err
	}
	var b strings.Builder
	e.out = &b
	if err := t.Execute(expandWriter{e}, e.data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// ValidateProperties checks expansion property names: each must be a Go identifier that is
// not a keyword (go/token.IsIdentifier, KubeStellar's rule), because templates refer to them
// as {{ .name }}.
func ValidateProperties(properties map[string]string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	keys := make([]string, 0, len(properties))
	for k := range properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !token.IsIdentifier(k) {
			errs = append(errs, field.Invalid(fldPath.Key(k), k,
				"a property name must be a Go identifier (a letter or _, then letters, digits or _) and not a Go keyword"))
		}
	}
	return errs
}
