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

package inventory

import (
	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// Kinds of the sources an instance reads values from.
const (
	SecretKind    = "Secret"
	ConfigMapKind = "ConfigMap"
)

// Source is one object of the instance's namespace that an instance reads values from
// besides its own spec: a Secret or ConfigMap of parametersFrom, or the Secret in which the
// controller keeps its generated values.
type Source struct {
	// Kind is SecretKind or ConfigMapKind.
	Kind string
	// Name is the object's name.
	Name string
}

// Resource is the resource of the source's kind, as an authorizer names it.
func (s Source) Resource() string {
	if s.Kind == ConfigMapKind {
		return "configmaps"
	}
	return "secrets"
}

func (s Source) String() string { return s.Kind + " " + s.Name }

// Sources are the parametersFrom sources of an instance, in order.
func Sources(ti *templatesv1.TemplateInstance) []Source {
	out := make([]Source, 0, len(ti.Spec.ParametersFrom))
	for _, from := range ti.Spec.ParametersFrom {
		switch {
		case from.SecretRef != nil:
			out = append(out, Source{Kind: SecretKind, Name: from.SecretRef.Name})
		case from.ConfigMapRef != nil:
			out = append(out, Source{Kind: ConfigMapKind, Name: from.ConfigMapRef.Name})
		}
	}
	return out
}

// Data reads the data of one source of the instance's namespace (a ConfigMap's data and
// binaryData both); its error is returned as it is.
type Data func(Source) (map[string][]byte, error)

// ConfigMapData is a ConfigMap's data and binaryData as one map, as a source's data.
func ConfigMapData(data map[string]string, binary map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(data)+len(binary))
	for k, v := range binary {
		out[k] = v
	}
	for k, v := range data {
		out[k] = []byte(v)
	}
	return out
}

// Inputs are the values an instance renders with, and where they came from.
type Inputs struct {
	// Values are the values by parameter name.
	Values map[string]string
	// FromSecret names the parameters whose value was read from a Secret: secret wherever it
	// goes, whatever the template declares (redact.Secret).
	FromSecret map[string]bool
	// Read are the sources read, in the order read.
	Read []Source
	// Secrets are every value read from a Secret, of declared keys or not: what no message
	// may quote.
	Secrets []string
}

// ReadInputs merges the values of an instance's parametersFrom (only keys the template
// declares, later sources over earlier ones) under its spec.parameters, reading each source
// with read.
func ReadInputs(ti *templatesv1.TemplateInstance, t *templates.Template, read Data) (*Inputs, error) {
	declared := map[string]bool{}
	for _, p := range t.Parameters {
		declared[p.Name] = true
	}
	in := &Inputs{Values: map[string]string{}, FromSecret: map[string]bool{}}
	for _, src := range Sources(ti) {
		data, err := read(src)
		if err != nil {
			return nil, err
		}
		in.Read = append(in.Read, src)
		secret := src.Kind == SecretKind
		for k, v := range data {
			if secret {
				in.Secrets = append(in.Secrets, string(v))
			}
			if declared[k] {
				in.Values[k], in.FromSecret[k] = string(v), secret
			}
		}
	}
	for k, v := range ti.Spec.Parameters {
		in.Values[k], in.FromSecret[k] = v, false
	}
	return in, nil
}

// Keep puts the values kept in the Secret src (the instance's generated values, data) into
// the inputs, for the generated parameters names but those whose rotation is asked for
// (rotate); src counts as read when a value was taken from it.
func (in *Inputs) Keep(src Source, data map[string][]byte, names, rotate map[string]bool) {
	taken := false
	for n := range names {
		if v, ok := data[n]; ok && !rotate[n] {
			in.Values[n], in.FromSecret[n] = string(v), true
			in.Secrets = append(in.Secrets, string(v))
			taken = true
		}
	}
	if taken {
		in.Read = append(in.Read, src)
	}
}

// GeneratedParameters are the parameters the engine generates because nobody gave a value.
func GeneratedParameters(t *templates.Template, values map[string]string) map[string]bool {
	names := map[string]bool{}
	for _, p := range t.Parameters {
		if p.Generate != "" && values[p.Name] == "" {
			names[p.Name] = true
		}
	}
	return names
}
