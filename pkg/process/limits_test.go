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
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestOutputIsBounded checks that a template referring to a parameter many times cannot turn
// a long value into unbounded output: a request of kilobytes could otherwise ask for gigabytes.
func TestOutputIsBounded(t *testing.T) {
	refs := strings.Repeat("${P}", 1000)
	tpl := &templates.Template{
		Message:    refs[:len(refs)/2],
		Parameters: []templates.Parameter{{Name: "P"}},
		Objects: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"small"}}`)},
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"x":"` + refs + `"}}`)},
		},
	}
	plan, errs := Compile(tpl, Stencil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	value := strings.Repeat("v", 10_000)
	cases := []struct {
		name  string
		limit int
		want  string
	}{
		{"message", 1 << 20, "message"},
		{"object", 8 << 20, "objects[1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := plan.Execute(Request{Parameters: map[string]string{"P": value}, MaxOutputBytes: tc.limit})
			if len(errs) != 1 || errs[0].Field != tc.want || !strings.Contains(errs[0].Detail, "more than") {
				t.Fatalf("want one error at %s, got %v", tc.want, errs)
			}
		})
	}
	if _, errs := plan.Execute(Request{Parameters: map[string]string{"P": "short"}}); len(errs) > 0 {
		t.Fatalf("a short value: %v", errs)
	}
}

// TestNumbersKubernetesCannotRead checks that no number beyond what Kubernetes reads (int64 or
// float64) reaches the output: in objects and transformer configs it is an error naming the
// field; in a value substituted as JSON it makes the value a string; an int parameter must
// hold one Kubernetes reads.
func TestNumbersKubernetesCannotRead(t *testing.T) {
	huge := "1" + strings.Repeat("0", 400)
	tpl := &templates.Template{
		Objects: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"spec":{"ok":[1e308,-2.5,99999999999999999999],"n":1e400}}`)},
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"spec":{"list":[0,` + huge + `]}}`)},
		},
		Transformers: []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"builtin","kind":"ReplicaCountTransformer","replica":{"name":"a","count":-1e999}}`)}},
	}
	_, errs := Compile(tpl, Stencil)
	var got []string
	for _, e := range errs {
		got = append(got, e.Field)
	}
	if want := "objects[0].spec.n objects[1].spec.list[1] transformers[0].replica.count"; strings.Join(got, " ") != want {
		t.Fatalf("errors at %q, want %q: %v", got, want, errs)
	}
	// OpenShift's templates are decoded without the API's conversion: Compile finds them too.
	_, errs = processCase(t, openShiftTemplateJSON(`[]`, `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"n":1e400}]`), Request{})
	errorsContain(t, errs, "objects[0].n: Invalid value: \"1e400\"")

	values := map[string]string{
		"1e400": `"1e400"`, "-1e999": `"-1e999"`, `[1,1e400]`: `"[1,1e400]"`, `{"a":` + huge + `}`: `"{\"a\":` + huge + `}"`,
		"1e308": `1e308`, "99999999999999999999": `99999999999999999999`, "[1.5]": `[1.5]`,
	}
	for value, want := range values {
		result, errs := processCase(t, stencilTemplate(`[{"name":"P"}]`, `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":"${{P}}"}]`),
			Request{Parameters: map[string]string{"P": value}})
		if len(errs) > 0 {
			t.Fatalf("%.40s: %v", value, errs)
		}
		if got := objectsOf(result); !strings.Contains(got, `"data":`+want+`}`) {
			t.Errorf("${{P}} with %.40s gave %.200s, want data %.60s", value, got, want)
		}
	}

	_, errs = processCase(t, stencilTemplate(`[{"name":"N","type":"int","value":"`+huge+`"}]`, `[]`), Request{})
	errorsContain(t, errs, "parameters[0].value", "within ±1.8e308")
	_, errs = processCase(t, stencilTemplate(`[{"name":"N","type":"int"}]`, `[]`), Request{Parameters: map[string]string{"N": "-" + huge}})
	errorsContain(t, errs, "parameters[0]", "within ±1.8e308")
}

// TestValuesSpendFromTheOutputBudget checks that generated values, which the answer carries,
// count against the bound of one request.
func TestValuesSpendFromTheOutputBudget(t *testing.T) {
	params := make([]string, 40)
	for i := range params {
		params[i] = fmt.Sprintf(`{"name":"P%d","generate":"expression","from":"[a-z]{255}"}`, i)
	}
	tmpl, d, err := DecodeTemplate([]byte(stencilTemplate("["+strings.Join(params, ",")+"]", `[]`)))
	if err != nil {
		t.Fatal(err)
	}
	plan, errs := Compile(tmpl, d)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, errs := plan.Execute(Request{MaxOutputBytes: 8000}); len(errs) == 0 || errs[0].Field != "parameters" {
		t.Fatalf("40 values of 255 bytes under a bound of 8000: %v", errs)
	}
	if _, errs := plan.Execute(Request{MaxOutputBytes: 20000}); len(errs) > 0 {
		t.Fatalf("under a bound of 20000: %v", errs)
	}
}

// TestOutputGrows: with Grow, the output's limit is where it starts, and Execute asks for more
// as the output passes it (values, message and objects alike), producing the output once; a
// Grow that stops leaves the output problem naming the limit reached.
func TestOutputGrows(t *testing.T) {
	refs := strings.Repeat("${P}", 100)
	tpl := &templates.Template{
		Message:    refs,
		Parameters: []templates.Parameter{{Name: "P"}},
		Objects: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"x":"` + refs + refs + `"}}`)},
		},
	}
	plan, errs := Compile(tpl, Stencil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	value := strings.Repeat("v", 1000)
	var asked []int
	grow := func(most int) func(int) int {
		return func(size int) int {
			asked = append(asked, size)
			return min(max(4*size, 1024), most)
		}
	}
	result, errs := plan.Execute(Request{Parameters: map[string]string{"P": value}, MaxOutputBytes: 512, Grow: grow(1 << 20)})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(result.Message) != 100_000 || len(result.Objects) != 1 || len(result.Objects[0]) < 200_000 {
		t.Fatalf("message of %d bytes, objects %d", len(result.Message), len(result.Objects))
	}
	// The value (1,000 bytes past 512), the message (100 KB), the object (200 KB).
	if len(asked) < 2 || asked[0] != 1000 {
		t.Errorf("Grow asked for %v", asked)
	}
	asked = nil
	_, errs = plan.Execute(Request{Parameters: map[string]string{"P": value}, MaxOutputBytes: 512, Grow: grow(150_000)})
	if len(errs) != 1 || errs[0].Origin != OutputLimitOrigin || errs[0].Field != "objects[0]" || !strings.Contains(errs[0].Detail, "more than 149000 bytes") {
		t.Fatalf("want the object past the last limit, got %v (asked %v)", errs, asked)
	}
}
