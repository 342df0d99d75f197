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
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
)

// TestOpenShiftParametersReadIntoTheInternalType checks the lean path of OpenShift templates,
// which reads the parameters into the internal type and converts the rest around them,
// against the API's decoders and openshift.ToInternal, on the shapes a template's author
// controls: escapes of every kind, invalid escapes and UTF-8 (left to the API's decoder),
// and Stencil's fields in the annotation, which rewrite the parameters read (in place: they
// are the template's own), by position and by name.
func TestOpenShiftParametersReadIntoTheInternalType(t *testing.T) {
	for _, params := range []string{
		`[{"name":"A","value":"1"},{"name":"B","description":"a \"quoted\" \\ path\/x\n\ttab \u00e9\ud83d\ude00","required":true}]`,
		`[{"name":"\u00e9","displayName":"\u0041","value":"\u0024{A}","generate":"expression","from":"[a-z]{3}\\d"},{"name":"A"}]`,
		`[{"name":"B"},{"name":"A","value":"x"},{"name":"é"},{"name":"C","description":"no fields"}]`,
		`[{"name":"A","description":"\ud800 lone"},{"name":"B","value":"\udc00\ud800"}]`,
		`[{"name":"A","description":"\x"}]`, `[{"name":"A","description":"\u00zz"}]`, "[{\"name\":\"A\",\"value\":\"bad \xff\"}]",
		"[{\"name\":\"A\",\"description\":\"\\n then bad \xc3\"}]", `[{"name":"A","value":"\u0000\b\f\r"}]`,
		`[null,{"name":"B","value":null},null]`, `[]`, `null`,
	} {
		checkOpenShiftDecodeAgrees(t, []byte(params))
	}
	// The lean path does read a template whose annotation rewrites its parameters.
	doc := `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"annotations":{"` + openshift.StencilFieldsAnnotation +
		`":` + stencilFieldsOfParameters + `}},"parameters":[{"name":"B","description":"x\ny"},{"name":"A"}],"objects":[]}`
	top, err := splitTemplate([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := top.openShift(false); !ok {
		t.Fatal("the lean path left the template to the API's decoders")
	}
	got, err := decodeOpenShift(top)
	if err != nil {
		t.Fatal(err)
	}
	if got.OpenShift != true || got.Parameters[0].Type != "" || len(got.Parameters[0].Enum) != 2 || got.Parameters[1].Type != "int" ||
		got.Parameters[0].Description != "x\ny" || got.Annotations != nil {
		t.Fatalf("the annotation's fields were not restored by name: %+v", got)
	}
}

// TestLeanParametersMemory checks what reading the parameters of a hostile template allocates,
// in both dialects: a description of braces, of "[{", or of escapes, a megabyte each, costs
// about its bytes, not a parameter's 224 bytes for each of them; many parameters cost 224
// bytes each, the list made once for them (no copies as it grows). The most a description can
// make room for is one parameter every three bytes ("[{}" or ",{}"), as many as the shortest
// parameters ({},) would have.
func TestLeanParametersMemory(t *testing.T) {
	const size = 1 << 20
	many := `[` + strings.TrimSuffix(strings.Repeat(`{},`, 20000), ",") + `]`
	for name, c := range map[string]struct {
		data string
		room int // besides the parameters read
	}{
		"braces":            {`[{"name":"A","description":"` + strings.Repeat("{", size) + `"}]`, 0},
		"brackets, braces":  {`[{"name":"A","description":"` + strings.Repeat("[{", size/2) + `"}]`, 0},
		"commas, braces":    {`[{"name":"A","description":"` + strings.Repeat(", {", size/3) + `"}]`, 0},
		"as parameters":     {`[{"name":"A","description":"` + strings.Repeat(",{}", size/3) + `"}]`, size / 3},
		"escapes":           {`[{"name":"A","description":"` + strings.Repeat(`\u00e9\n`, size/8) + `"}]`, 0},
		"many parameters":   {many, 0},
		"spaced parameters": {strings.ReplaceAll(many, ",", " ,\n\t"), 0},
	} {
		t.Run(name, func(t *testing.T) {
			data := []byte(c.data)
			params, ok := readParameters(&leanReader{b: data}, openShiftParameter)
			if !ok {
				t.Fatal("not read")
			}
			// The strings' blocks (at most twice the input), the list, and little else.
			bound := 2*uint64(len(data)) + 224*uint64(len(params)+c.room) + 64<<10
			for _, dialect := range []func(){
				func() { readParameters(&leanReader{b: data}, openShiftParameter) },
				func() { readParameters(&leanReader{b: data}, stencilParameter) },
			} {
				if allocated := allocatedBy(dialect); allocated > bound {
					t.Errorf("reading %d parameters in %d bytes allocated %d bytes, more than %d", len(params), len(data), allocated, bound)
				}
			}
		})
	}
}

// allocatedBy is how many bytes fn allocates (no test runs beside it: none is parallel).
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestParameterRoom checks the size the parameters' list is made with: the parameters, not
// the objects inside them nor references nor braces in strings, but what looks like the
// shortest parameters.
func TestParameterRoom(t *testing.T) {
	for in, want := range map[string]int{
		`[]`: 0, `[{}]`: 1, `[{},{},{}]`: 3, "[\n  {\n  } ,\r\n\t{ \"name\":\"A\"}]": 2, `[null,{}]`: 1,
		`[{"items":{"type":"int"},"properties":{"a":{}},"value":"${A} ${{B}}"}]`: 1,
		`[{"description":"{{{{"}]`: 1, `[{"description":"[{,{ {"}]`: 1, `[{"description":"[{},{}"}]`: 3,
		`[{"x":[{},{"a":1}]}]`: 3, `{`: 0, `[{`: 0, `,{`: 0, `{}`: 0,
		`[` + strings.Repeat(`{},`, templates.MaxEntries+10) + `{}]`: templates.MaxEntries + 11,
	} {
		if got := parameterRoom([]byte(in)); got != want {
			t.Errorf("parameterRoom(%.60s) = %d, want %d", in, got, want)
		}
	}
}

// TestOpenShiftDecodesShareNothing decodes two users' OpenShift templates at once, many times
// (run with -race): each decode reads into memory of its own (the parameters, the strings'
// blocks), which the annotation's fields then change in place, so a decode must give the same
// template as one alone, and changing one decoded template changes no other.
func TestOpenShiftDecodesShareNothing(t *testing.T) {
	users := make([][]byte, 2)
	for u := range users {
		users[u] = []byte(fmt.Sprintf(`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"u%d",`+
			`"annotations":{"%s":%s}},"parameters":[{"name":"A","value":"user %d \"a\"\n"},{"name":"B","description":"%s"},`+
			`{"name":"é","value":"\u00e9%d"}],"objects":[{"kind":"ConfigMap","data":{"a":"${A}"}}]}`,
			u, openshift.StencilFieldsAnnotation, stencilFieldsOfParameters, u, strings.Repeat(fmt.Sprintf(`user %d\t`, u), 50), u))
	}
	want := make([]*templates.Template, len(users))
	for u, doc := range users {
		tpl, _, err := DecodeTemplate(doc)
		if err != nil {
			t.Fatal(err)
		}
		want[u] = tpl
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := g % len(users)
			for range 200 {
				tpl, _, err := DecodeTemplate(users[u])
				if err != nil {
					t.Error(err)
					return
				}
				if !reflect.DeepEqual(tpl, want[u]) {
					t.Errorf("user %d's template decoded alongside another's: %+v, alone %+v", u, tpl, want[u])
					return
				}
				// The decode's own: writing it races with no other decode.
				tpl.Parameters[0].Value, tpl.Parameters[1].Enum[0] = "changed", "changed"
			}
		}()
	}
	wg.Wait()
}
