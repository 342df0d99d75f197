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

package process

import (
	"reflect"
	"testing"

	kjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestDecodeParametersAgreesWithTheTypedDecoder checks that reading parameters token by token
// accepts and yields what the typed decoder of the API does.
func TestDecodeParametersAgreesWithTheTypedDecoder(t *testing.T) {
	for _, in := range []string{
		`[]`, `null`, `[{"name":"A","value":"1","required":true,"type":"int","generate":"expression","from":"[a-z]{3}","displayName":"a","description":"b"}]`,
		`[{"name":"A","name":"B"}]`, `[{"name":null,"required":null}]`, `[null]`, `[{"n\u0061me":"escaped"}]`,
		`[{"name":"A","unknown":{"deep":[1,2,{"x":null}]}}]`, "[{\"name\":\"bad\xffutf8\"}]", `[{"name":"é\u00e9\n"}]`,
		`[{"name":1}]`, `[{"required":"true"}]`, `[{"name":["A"]}]`, `{}`, `[1]`, `[{"name":"A"},]`, `[{"Name":"case"}]`,
		`[{"name":"A","enum":["a",null,"b"],"pattern":"^a","minimum":"1","maximum":"2.5","minLength":0,"maxLength":9,"multiline":true,"secret":false}]`,
		`[{"enum":[]}]`, `[{"enum":null,"minimum":null,"maxLength":null,"secret":null}]`, `[{"enum":["a"],"enum":["b","c"]}]`,
		`[{"minimum":1}]`, `[{"minLength":1.5}]`, `[{"maxLength":"3"}]`, `[{"maxLength":99999999999999999999}]`, `[{"enum":[1]}]`,
		`[{"enum":"a"}]`, `[{"secret":"yes"}]`, `[{"minimum":"1","minimum":null}]`,
		`[{"name":"J","type":"json","items":{"type":"int","enum":["1"],"minimum":"0","maxLength":2}}]`,
		`[{"properties":{"port":{"type":"int","maximum":"65535"},"host":{"type":"string","pattern":"^a"}}}]`,
		`[{"items":{"type":"int"},"items":{"minimum":"1"}}]`, `[{"properties":{"a":{"type":"int"}},"properties":{"b":{"type":"bool"}}}]`,
		`[{"items":null,"properties":null}]`, `[{"items":[1]}]`, `[{"properties":{"a":1}}]`, `[{"items":{"type":"int","extra":1}}]`,
	} {
		var want []v1alpha1.Parameter
		wantErr := kjson.UnmarshalCaseSensitivePreserveInts([]byte(in), &want)
		got, err := decodeParameters([]byte(in))
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s: error %v, typed decoder's %v", in, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		var gotVersioned []v1alpha1.Parameter
		for _, p := range got {
			var v v1alpha1.Parameter
			if err := v1alpha1.Convert_templates_Parameter_To_v1alpha1_Parameter(&p, &v, nil); err != nil {
				t.Fatal(err)
			}
			gotVersioned = append(gotVersioned, v)
		}
		if len(gotVersioned) == 0 && len(want) == 0 {
			continue // [] and null both mean no parameters
		}
		if !reflect.DeepEqual(gotVersioned, want) {
			t.Errorf("%s: got %+v, typed decoder %+v", in, gotVersioned, want)
		}
	}
}
