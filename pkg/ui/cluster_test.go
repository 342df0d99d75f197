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

package ui

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestSecretValues: the instance page masks the values of the parameters flagged secret and of
// those named like credentials, as processing used them; empty values are nothing to mask, and
// a parameter that is neither is shown.
func TestSecretValues(t *testing.T) {
	list := &unstructured.Unstructured{Object: map[string]any{"parameters": []any{
		map[string]any{"name": "NAME", "value": "shop"},
		map[string]any{"name": "KEY", "value": "k-1", "secret": true},
		map[string]any{"name": "DB_PASSWORD", "value": "p-2"},
		map[string]any{"name": "github_token", "value": "t-3"},
		map[string]any{"name": "EMPTY_SECRET", "value": ""},
		map[string]any{"name": "ODD", "value": int64(7), "secret": "yes"},
		"not a parameter",
	}}}
	want := []GeneratedValue{{"KEY", "k-1"}, {"DB_PASSWORD", "p-2"}, {"github_token", "t-3"}}
	if got := secretValues(list); !reflect.DeepEqual(got, want) {
		t.Errorf("secretValues = %v, want %v", got, want)
	}
	if got := secretValues(&unstructured.Unstructured{Object: map[string]any{}}); got == nil || len(got) != 0 {
		t.Errorf("no parameters: %#v, want an empty list (JSON [])", got)
	}
}
