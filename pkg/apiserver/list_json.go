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

package apiserver

import (
	"encoding/json"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// The members of a processed List around its items, written as encoding/json writes them.
// Processing answers a List of no list metadata and of parameters without constraints (an
// OpenShift template's, most templates'), whose encoding by reflection was a tenth of the
// server's work on a small template; those are written here, field by field in the type's
// order and with encoding/json's escaping (TestEncodeListWritesWhatEncodingJSONWrites), and
// anything else by encoding/json.

// appendListHead appends the List's kind, apiVersion and metadata as json.Marshal(listHead)
// writes them, but for the closing brace: straight into the answer.
func appendListHead(out []byte, list *v1alpha1.List) ([]byte, error) {
	if list.ListMeta.ResourceVersion != "" || list.ListMeta.Continue != "" || list.ListMeta.RemainingItemCount != nil || list.ListMeta.SelfLink != "" {
		head, err := json.Marshal(listHead{TypeMeta: list.TypeMeta, ListMeta: list.ListMeta})
		if err != nil {
			return out, err
		}
		return append(out, head[:len(head)-1]...), nil
	}
	out = append(out, '{')
	if list.Kind != "" {
		out = jsonbytes.AppendQuotedHTML(append(out, `"kind":`...), list.Kind)
		out = append(out, ',')
	}
	if list.APIVersion != "" {
		out = jsonbytes.AppendQuotedHTML(append(out, `"apiVersion":`...), list.APIVersion)
		out = append(out, ',')
	}
	return append(out, `"metadata":{}`...), nil
}

// appendListTail appends the List's message, parameters and provenance as json.Marshal(listTail)
// writes them, each member after a comma, without the braces: straight into the answer, with
// no copy of its own.
func appendListTail(out []byte, list *v1alpha1.List) ([]byte, error) {
	plain := list.Provenance == nil
	for i := range list.Parameters {
		plain = plain && plainParameter(&list.Parameters[i])
	}
	if !plain {
		tail, err := json.Marshal(listTail{Message: list.Message, Parameters: list.Parameters, Provenance: list.Provenance})
		if err != nil || len(tail) <= 2 {
			return out, err
		}
		return append(append(out, ','), tail[1:len(tail)-1]...), nil
	}
	if list.Message != "" {
		out = jsonbytes.AppendQuotedHTML(append(out, `,"message":`...), list.Message)
	}
	if len(list.Parameters) > 0 {
		out = append(out, `,"parameters":[`...)
		for i := range list.Parameters {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendPlainParameter(out, &list.Parameters[i])
		}
		out = append(out, ']')
	}
	return out, nil
}

// listTailSize is about what appendListTail appends, to size the answer's buffer once.
func listTailSize(list *v1alpha1.List) int {
	size := len(list.Message) + 32
	for i := range list.Parameters {
		p := &list.Parameters[i]
		size += len(p.Name) + len(p.DisplayName) + len(p.Description) + len(p.Value) + len(p.From) + 96
	}
	return size
}

// plainParameter reports whether p has none of the constraints, whose encoding is left to
// encoding/json.
func plainParameter(p *v1alpha1.Parameter) bool {
	return p.Enum == nil && p.Pattern == "" && p.Minimum == nil && p.Maximum == nil && p.MinLength == nil &&
		p.MaxLength == nil && p.Items == nil && p.MaxItems == nil && p.Properties == nil
}

// appendPlainParameter appends a plainParameter as encoding/json writes it: its members in
// the type's order, those that are empty or false left out (omitempty).
func appendPlainParameter(out []byte, p *v1alpha1.Parameter) []byte {
	out = jsonbytes.AppendQuotedHTML(append(out, `{"name":`...), p.Name)
	text := func(member, value string) {
		if value != "" {
			out = jsonbytes.AppendQuotedHTML(append(out, member...), value)
		}
	}
	flag := func(member string, value bool) {
		if value {
			out = append(out, member...)
		}
	}
	text(`,"displayName":`, p.DisplayName)
	text(`,"description":`, p.Description)
	text(`,"value":`, p.Value)
	flag(`,"required":true`, p.Required)
	text(`,"type":`, string(p.Type))
	text(`,"generate":`, p.Generate)
	text(`,"from":`, p.From)
	flag(`,"multiline":true`, p.Multiline)
	flag(`,"secret":true`, p.Secret)
	return append(out, '}')
}
