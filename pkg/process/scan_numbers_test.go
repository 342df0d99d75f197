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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// objectNumberSeeds are objects arrays with numbers of every shape templates.NumberErrors
// looks at, and words and strings that look like them.
var objectNumberSeeds = []string{
	`[]`, `[{}]`, `[{"a":1,"b":-2.5,"c":[0,1e0]}]`, `[{"n":1e400}]`, `[{"n":-1E999}]`, `[{"n":2.5e+3}]`,
	`[{"s":"1e400","t":"platform.events","u":"\u003e1e5"}]`, `[{"a":true,"b":false,"c":null}]`,
	`[{"n":` + strings.Repeat("9", 308) + `}]`, `[{"n":` + strings.Repeat("9", 309) + `}]`,
	`[{"n":-` + strings.Repeat("1", 308) + `}]`, `[{"n":` + strings.Repeat("1", 200) + "." + strings.Repeat("1", 200) + `}]`,
	`[5]`, `[-1e999]`, `["1e999"]`, `[{"a":[[[1e400]]]}]`, `[{"a":"\\"},{"n":1e400}]`, `[{"a":"\"1e5"}]`,
	`[{"a":tru1e5}]`, `[{"a":-e5}]`, `[{"a":1e}]`, `[{"a": 1e400 ,"b":2}]`, "[{\"a\":\n1e400\n}]", "[{\"a\":\t1e400}]",
	`[{"a":1},{"b":1e400},{"c":2}]`, `[{"a":{"b":1e400}]`, `[{"a":"1e400}]`,
}

// TestObjectNumbersFit checks what the split scan says of the objects' numbers on the seeds:
// never that they fit where templates.NumberErrors finds one Kubernetes cannot read, and that
// they fit where a number has neither an exponent nor more than 308 characters.
func TestObjectNumbersFit(t *testing.T) {
	for _, objects := range objectNumberSeeds {
		checkObjectNumbers(t, []byte(`{"kind":"Template","objects":`+objects+`}`))
	}
	for objects, fit := range map[string]bool{
		`[{"a":1,"b":-2.5,"c":[0,10,"1e5"],"d":"platform.events"}]`: true,
		`[{"n":` + strings.Repeat("9", 308) + `}]`:                  true,
		`[{"n":` + strings.Repeat("9", 309) + `}]`:                  false,
		`[{"n":2.5e3}]`: false, `[{"n":1E5}]`: false, `[5]`: false, `[{"a":true}]`: true,
	} {
		split, err := SplitTemplateJSON([]byte(`{"objects":` + objects + `}`))
		if err != nil {
			t.Fatalf("%s: %v", objects, err)
		}
		if split.ObjectNumbersFit() != fit {
			t.Errorf("%s: the objects' numbers fit: %v, want %v", objects, split.ObjectNumbersFit(), fit)
		}
	}
	// Objects written twice: the last are read, and what the scan says is of those.
	split, err := SplitTemplateJSON([]byte(`{"objects":[{"n":1e400}],"objects":[{"n":1}]}`))
	if err != nil || !split.ObjectNumbersFit() {
		t.Errorf("the last objects fit: %v, %v", split.ObjectNumbersFit(), err)
	}
	split, err = SplitTemplateJSON([]byte(`{"objects":[{"n":1}],"parameters":[{"name":"A","n":1e400}],"objects":[{"n":1e400}]}`))
	if err != nil || split.ObjectNumbersFit() {
		t.Errorf("the last objects do not fit: %v, %v", split.ObjectNumbersFit(), err)
	}
}

// FuzzObjectNumbersFit checks that the split scan never says a template's objects' numbers fit
// when templates.NumberErrors (the conversion's check, which the API server then skips) finds a
// number Kubernetes cannot read in one of them, on any body and on any objects array.
//
// Run it with: go test ./pkg/process -run '^$' -fuzz '^FuzzObjectNumbersFit$' -fuzztime 30s
func FuzzObjectNumbersFit(f *testing.F) {
	for _, objects := range objectNumberSeeds {
		f.Add([]byte(objects))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkObjectNumbers(t, in)
		checkObjectNumbers(t, []byte(`{"kind":"Template","objects":`+string(in)+`}`))
	})
}

func checkObjectNumbers(t *testing.T, body []byte) {
	t.Helper()
	split, err := SplitTemplateJSON(body)
	if err != nil || !split.ObjectNumbersFit() {
		return
	}
	for i, o := range split.top.objects {
		if errs := templates.NumberErrors(o.Raw, field.NewPath("objects").Index(i)); len(errs) > 0 {
			t.Fatalf("%q: the scan says the objects' numbers fit, NumberErrors finds %v", body, errs)
		}
	}
}
