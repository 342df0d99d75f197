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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// BenchmarkDecodeParameters measures reading a template's parameters array from a request's
// bytes, beside the API's typed decoder of the same bytes (kjson into []v1alpha1.Parameter):
//   - openshift: mysql-persistent's parameters, text and flags only, as OpenShift's templates
//     have them;
//   - constrained: parameters of the Stencil dialect with types, bounds written as numbers
//     and as strings, lengths, enums, patterns and a json parameter's items.
func BenchmarkDecodeParameters(b *testing.B) {
	for _, tc := range []struct {
		name string
		data []byte
	}{{"openshift", mysqlParameters(b)}, {"constrained", constrainedParameters(20)}} {
		b.Run(tc.name+"/typed", func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				var out []v1alpha1.Parameter
				if err := kjson.UnmarshalCaseSensitivePreserveInts(tc.data, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/decode", func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeParameters[v1alpha1.Parameter](tc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// mysqlParameters is the parameters array of mysql-persistent, as its bytes.
func mysqlParameters(tb testing.TB) []byte {
	tb.Helper()
	mysql, err := os.ReadFile(filepath.Join("testdata", "mysql-persistent.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var whole struct {
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(mysql, &whole); err != nil {
		tb.Fatal(err)
	}
	return whole.Parameters
}

// constrainedParameters is a parameters array of n parameters cycling through the constraint
// keywords of the Stencil dialect.
func constrainedParameters(n int) []byte {
	var ps []string
	for i := range n {
		switch i % 5 {
		case 0:
			ps = append(ps, fmt.Sprintf(`{"name":"NAME_%d","displayName":"Name %d","description":"The name of the application, used in every object","value":"app","required":true,"pattern":"^[a-z][a-z0-9-]*$","maxLength":63}`, i, i))
		case 1:
			ps = append(ps, fmt.Sprintf(`{"name":"REPLICAS_%d","description":"How many pods run","type":"int","value":"3","minimum":1,"maximum":"10"}`, i))
		case 2:
			ps = append(ps, fmt.Sprintf(`{"name":"TIER_%d","description":"The service tier","value":"web","enum":["web","db","cache"]}`, i))
		case 3:
			ps = append(ps, fmt.Sprintf(`{"name":"RATIO_%d","type":"number","value":"0.5","minimum":0,"maximum":1,"secret":false,"multiline":false}`, i))
		case 4:
			ps = append(ps, fmt.Sprintf(`{"name":"PORTS_%d","type":"json","value":"[80,443]","items":{"type":"int","minimum":1,"maximum":65535},"maxItems":8}`, i))
		}
	}
	return []byte("[" + strings.Join(ps, ",") + "]")
}
