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

package transform

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestDefaultName(t *testing.T) {
	for in, want := range map[string]string{
		"PrefixSuffixTransformer": "prefix-suffix-transformer",
		"Kustomization":           "kustomization",
		"JSONPatchTransformer":    "json-patch-transformer",
		"ImageTag2Transformer":    "image-tag2-transformer",
		"lower":                   "lower",
	} {
		if got := defaultName(in); got != want {
			t.Errorf("defaultName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestChildPath(t *testing.T) {
	base := field.NewPath("transformers").Index(2)
	for in, want := range map[string]string{
		"target.name":         "transformers[2].target.name",
		"fieldSpecs[0].path":  "transformers[2].fieldSpecs[0].path",
		"labels[a.b]":         "transformers[2].labels[a.b]",
		"patches[1][2].value": "transformers[2].patches[1][2].value",
	} {
		if got := childPath(base, in).String(); got != want {
			t.Errorf("childPath(%q) = %q, want %q", in, got, want)
		}
	}
}
