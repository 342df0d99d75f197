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

package expand

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// expandObj is a ConfigMap opted into expansion with the given data (JSON).
func expandObj(name, data string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"ns",
		"annotations":{"control.kubestellar.io/expand-templates":"true"}},"data":` + data + `}`
}

// TestExpand encodes cases 31-39 of the KubeStellar acceptance table; names say where Stencil
// deliberately differs.
func TestExpand(t *testing.T) {
	props := map[string]string{"clusterName": "cluster1", "clusterURL": "https://my.clusters/1001-abcd", "region": "east", "clusterHash": "1001-dead-beef"}
	tests := []struct {
		name    string
		props   map[string]string
		objects string
		want    string   // objects after expansion; empty when errors are expected
		errs    []string // substrings, one per expected error, in order
	}{
		{
			name: "case31 Deployment annotation from properties",
			objects: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","annotations":{
				"control.kubestellar.io/expand-templates":"true",
				"info":"cluster {{ .clusterName }} URL is {{ .clusterURL }}, region is {{ .region }}"}}}]`,
			want: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","annotations":{
				"control.kubestellar.io/expand-templates":"true",
				"info":"cluster cluster1 URL is https://my.clusters/1001-abcd, region is east"}}}]`,
		},
		{
			name:    "case32 URL from clusterName and a property",
			props:   map[string]string{"clusterName": "virgo", "clusterHash": "1001-dead-beef"},
			objects: `[` + expandObj("c", `{"url":"https://my.loki.server.com/{{ .clusterName }}-{{.clusterHash}}"}`) + `]`,
			want:    `[` + expandObj("c", `{"url":"https://my.loki.server.com/virgo-1001-dead-beef"}`) + `]`,
		},
		{
			name:    "case33 deliberate difference: syntax errors fail with object and path",
			objects: `[` + expandObj("c", `{"a":"{{ + }}","b":"{{if true}}"}`) + `]`,
			errs: []string{
				`objects[0].data.a: Invalid value: "{{ + }}": v1 ConfigMap ns/c: template: objects[0].data.a:1: illegal number syntax: "+"`,
				`objects[0].data.b: Invalid value: "{{if true}}": v1 ConfigMap ns/c: template: objects[0].data.b:1: unexpected EOF`,
			},
		},
		{
			name:    "case34 deliberate difference: a missing property fails and nothing partial is returned",
			props:   map[string]string{"p1": "X"},
			objects: `[` + expandObj("c", `{"a":"AB{{.p1}}C{{.p2}}D","ok":"{{.p1}}"}`) + `]`,
			errs:    []string{`objects[0].data.a: Invalid value: "AB{{.p1}}C{{.p2}}D": v1 ConfigMap ns/c: template: objects[0].data.a:1:12: executing "objects[0].data.a" at <.p2>: map has no entry for key "p2"`},
		},
		{
			name: "case35 non-strings and strings without {{ are unchanged",
			objects: `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"control.kubestellar.io/expand-templates":"true"}},
				"data":{"i":1,"f":1.5,"b":true,"n":null,"s":"plain {not} }}","l":[1,"x",{"y":[null]}],"big":99999999999999999999}}]`,
			want: `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"control.kubestellar.io/expand-templates":"true"}},
				"data":{"i":1,"f":1.5,"b":true,"n":null,"s":"plain {not} }}","l":[1,"x",{"y":[null]}],"big":99999999999999999999}}]`,
		},
		{
			name:    "case36 map keys are not expanded; values in lists are",
			objects: `[` + expandObj("c", `{"{{.region}}":"{{.region}}","l":["a{{.region}}",["{{.clusterName}}"]]}`) + `]`,
			want:    `[` + expandObj("c", `{"{{.region}}":"east","l":["aeast",["cluster1"]]}`) + `]`,
		},
		{
			name:    "case37 no functions beyond text/template's; no fields of strings",
			objects: `[` + expandObj("c", `{"a":"{{ upper .region }}","b":"{{ .region.x }}"}`) + `]`,
			errs: []string{
				`objects[0].data.a: Invalid value: "{{ upper .region }}": v1 ConfigMap ns/c: template: objects[0].data.a:1: function "upper" not defined`,
				`objects[0].data.b: Invalid value: "{{ .region.x }}": v1 ConfigMap ns/c: template: objects[0].data.b:1:10: executing "objects[0].data.b" at <.region.x>: can't evaluate field x in type string`,
			},
		},
		{
			name:    "case38 deliberate difference: index on a missing key is an error",
			objects: `[` + expandObj("c", `{"a":"{{ index . \"nope\" }}","b":"{{ index . \"region\" }}"}`) + `]`,
			errs:    []string{`objects[0].data.a: Invalid value: "{{ index . \"nope\" }}": v1 ConfigMap ns/c: template: objects[0].data.a:1:3: executing "objects[0].data.a" at <index . "nope">: error calling index: map has no entry for key "nope"`},
		},
		{
			name:    "case39 clusterName is always defined, empty by default",
			props:   map[string]string{"clusterURL": "u"},
			objects: `[` + expandObj("c", `{"a":"[{{.clusterName}}]{{.clusterURL}}"}`) + `]`,
			want:    `[` + expandObj("c", `{"a":"[]u"}`) + `]`,
		},
		{
			name:    "case39 a given clusterName overrides the default",
			props:   map[string]string{"clusterName": "x"},
			objects: `[` + expandObj("c", `{"a":"{{.clusterName}}"}`) + `]`,
			want:    `[` + expandObj("c", `{"a":"x"}`) + `]`,
		},
		{
			name: "every string is expanded, apiVersion, kind and name included; the annotation stays",
			objects: `[{"apiVersion":"{{.g}}/v1","kind":"{{.k}}","metadata":{"name":"n-{{.region}}","labels":{"r":"{{.region}}"},
				"annotations":{"control.kubestellar.io/expand-templates":"true"}}}]`,
			props: map[string]string{"g": "apps", "k": "Deployment", "region": "west"},
			want: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"n-west","labels":{"r":"west"},
				"annotations":{"control.kubestellar.io/expand-templates":"true"}}}]`,
		},
		{
			name: "objects without the annotation, or with another value, are left alone",
			objects: `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"x":"{{.region}}"}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","annotations":{"control.kubestellar.io/expand-templates":"True"}},"data":{"x":"{{.nope}}"}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"control.kubestellar.io/expand-templates":true}},"data":{"x":"{{.nope}}"}}]`,
			want: `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"x":"{{.region}}"}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","annotations":{"control.kubestellar.io/expand-templates":"True"}},"data":{"x":"{{.nope}}"}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"control.kubestellar.io/expand-templates":true}},"data":{"x":"{{.nope}}"}}]`,
		},
		{
			name:    "errors in several objects are all reported, in order, with paths as Kubernetes writes them",
			objects: `[` + expandObj("a", `{"ok":"{{.region}}"}`) + `,` + expandObj("b", `{"k.e/y":"{{.x}}","l":["{{.y}}"]}`) + `]`,
			errs: []string{
				`objects[1].data[k.e/y]: Invalid value: "{{.x}}": v1 ConfigMap ns/b:`,
				`objects[1].data.l[0]: Invalid value: "{{.y}}": v1 ConfigMap ns/b:`,
			},
		},
		{
			name:    "default functions still work",
			props:   map[string]string{"region": "east", "n": "<3>"},
			objects: `[` + expandObj("c", `{"a":"{{printf \"%s-%03d\" .region 7}}","b":"{{if eq .region \"east\" \"west\"}}yes{{else}}no{{end}}","c":"{{len .region}}{{html .n}}{{urlquery .n}}{{js .n}}","d":"{{range $k, $v := .}}{{$k}}={{$v}};{{end}}","e":"{{range 3}}{{.}}{{end}}","f":"{{index .region 0}}{{slice .region 1 3}}","g":"{{print 1 2}}|{{println .region}}","h":"{{if lt 1 2}}{{if ge .region \"e\"}}{{if ne 1 2}}{{if le 2 2}}{{if gt 3.5 2.0}}ok{{end}}{{end}}{{end}}{{end}}{{end}}","i":"{{define \"t\"}}[{{.}}]{{end}}{{template \"t\" .region}}{{block \"b\" 1}}{{.}}{{end}}"}`) + `]`,
			want:    `[` + expandObj("c", `{"a":"east-007","b":"yes","c":"4&lt;3&gt;%3C3%3E\\u003C3\\u003E","d":"clusterName=;n=<3>;region=east;","e":"012","f":"101as","g":"1 2|east\n","h":"ok","i":"[east]1"}`) + `]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.props
			if p == nil {
				p = props
			}
			objs := ksList(t, tt.objects)
			before := ksJSON(t, objs)
			errs := Templates(objs, p, Limits{})
			if len(errs) != len(tt.errs) {
				t.Fatalf("got %d errors %v, want %d", len(errs), errs, len(tt.errs))
			}
			for i, w := range tt.errs {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("error %d:\n got %s\nwant %s", i, errs[i].Error(), w)
				}
			}
			if len(errs) > 0 {
				if after := ksJSON(t, objs); after != before {
					t.Fatalf("objects changed although expansion failed:\n%s\n%s", before, after)
				}
				return
			}
			if got, want := ksJSON(t, objs), ksJSON(t, ksList(t, tt.want)); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestExpandLimits checks that output, loops, template calls and functions that build or
// compare strings are all bounded, and that hitting a limit stops the expansion with one error.
func TestExpandLimits(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name   string
		data   string
		props  map[string]string
		limits Limits
		err    string
	}{
		{"output", `{"a":"{{range 2000}}0123456789{{end}}","b":"{{.nope}}"}`, nil, Limits{MaxOutputBytes: 10000}, "output exceeds the limit of 10000 bytes"},
		{"output across strings", `{"a":"{{range 600}}0123456789{{end}}","b":"{{range 600}}0123456789{{end}}"}`, nil, Limits{MaxOutputBytes: 10000}, "objects[0].data.b: Invalid value"},
		{"default output limit", `{"a":"{{range 110000}}0123456789{{end}}"}`, nil, Limits{}, "limit of 1048576 bytes"},
		{"empty loop", `{"a":"{{range 1000000000000}}{{end}}"}`, nil, Limits{}, "work limit"},
		{"nested loops", `{"a":"{{range 100000}}{{range 100000}}{{end}}{{end}}"}`, nil, Limits{}, "work limit"},
		{"loop with break", `{"a":"{{range 1000000000000}}{{continue}}{{end}}"}`, nil, Limits{}, "work limit"},
		{"recursion", `{"a":"{{define \"r\"}}{{template \"r\"}}{{end}}{{template \"r\"}}"}`, nil, Limits{}, `template "r" calls itself`},
		{"mutual recursion", `{"a":"{{define \"a\"}}{{if 1}}{{template \"b\"}}{{end}}{{end}}{{define \"b\"}}{{range 1}}{{template \"a\"}}{{end}}{{end}}x"}`, nil, Limits{}, "calls itself"},
		{"nesting", `{"a":"` + strings.Repeat("{{if 1}}", 1001) + strings.Repeat("{{end}}", 1001) + `"}`, nil, Limits{}, "the template has 1001 control structures"},
		{"nesting hidden in else", `{"a":"{{if 0}}` + strings.Repeat("{{else if 0}}", 1001) + `{{end}}"}`, nil, Limits{}, "the template has 1002 control structures"},
		{
			"doubling template calls",
			`{"a":"{{define \"a0\"}}{{end}}{{define \"a1\"}}{{template \"a0\"}}{{template \"a0\"}}{{end}}{{define \"a2\"}}{{template \"a1\"}}{{template \"a1\"}}{{end}}{{define \"a3\"}}{{template \"a2\"}}{{template \"a2\"}}{{end}}{{define \"a4\"}}{{template \"a3\"}}{{template \"a3\"}}{{end}}{{define \"a5\"}}{{template \"a4\"}}{{template \"a4\"}}{{end}}{{define \"a6\"}}{{template \"a5\"}}{{template \"a5\"}}{{end}}{{define \"a7\"}}{{template \"a6\"}}{{template \"a6\"}}{{end}}{{define \"a8\"}}{{template \"a7\"}}{{template \"a7\"}}{{end}}{{define \"a9\"}}{{template \"a8\"}}{{template \"a8\"}}{{end}}{{define \"b0\"}}{{template \"a9\"}}{{template \"a9\"}}{{end}}{{define \"b1\"}}{{template \"b0\"}}{{template \"b0\"}}{{end}}{{define \"b2\"}}{{template \"b1\"}}{{template \"b1\"}}{{end}}{{define \"b3\"}}{{template \"b2\"}}{{template \"b2\"}}{{end}}{{define \"b4\"}}{{template \"b3\"}}{{template \"b3\"}}{{end}}{{define \"b5\"}}{{template \"b4\"}}{{template \"b4\"}}{{end}}{{define \"b6\"}}{{template \"b5\"}}{{template \"b5\"}}{{end}}{{define \"b7\"}}{{template \"b6\"}}{{template \"b6\"}}{{end}}{{define \"b8\"}}{{template \"b7\"}}{{template \"b7\"}}{{end}}{{define \"b9\"}}{{template \"b8\"}}{{template \"b8\"}}{{end}}{{template \"b9\"}}"}`,
			nil, Limits{}, "work limit",
		},
		{"printf width", `{"a":"{{printf \"%0999999d%0999999d\" 1 2}}"}`, nil, Limits{MaxWork: 1 << 20}, "work limit"},
		{"printf star width", `{"a":"{{printf \"%*d\" 999999 1}}"}`, nil, Limits{MaxWork: 1 << 20}, "work limit"},
		{"doubling variables", `{"a":"{{$a := printf \"%01000d\" 1}}{{$b := print $a $a $a $a $a $a $a $a}}{{$c := print $b $b $b $b $b $b $b $b}}{{$d := print $c $c $c $c $c $c $c $c}}{{$e := print $d $d $d $d $d $d $d $d}}{{$f := print $e $e $e $e $e $e $e $e}}{{$g := print $f $f $f $f $f $f $f $f}}{{len $g}}"}`, nil, Limits{}, "work limit"},
		{"escapers", `{"a":"{{$a := html .big}}{{$b := js .big}}{{$c := urlquery .big .big .big .big}}"}`, map[string]string{"big": strings.Repeat("<", 1<<20)}, Limits{MaxWork: 8 << 20}, "work limit"},
		{"comparisons", `{"a":"{{range 100000}}{{if eq $.x $.y}}{{end}}{{end}}"}`, map[string]string{"x": big, "y": big + ""}, Limits{}, "work limit"},
		{"index keys", `{"a":"{{range 100000}}{{index $ $.x | len}}{{end}}"}`, map[string]string{"x": big, big: "v"}, Limits{}, "work limit"},
		{"long keys are shortened in messages", `{"a":"{{index $ $.x}}"}`, map[string]string{"x": big}, Limits{}, `map has no entry for key "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			props := tt.props
			if props == nil {
				props = map[string]string{}
			}
			objs := ksList(t, `[`+expandObj("c", tt.data)+`]`)
			errs := Templates(objs, props, tt.limits)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.err) {
				t.Fatalf("got %v, want one error containing %q", errs, tt.err)
			}
		})
	}
}

// TestExpandAllowedNesting checks that the structure limits leave room for real templates.
func TestExpandAllowedNesting(t *testing.T) {
	data := `{"a":"` + strings.Repeat("{{- if 1 }}", 500) + "x" + strings.Repeat("{{end}}", 500) +
		`{{define \"t0\"}}0{{end}}` + func() string {
		var b strings.Builder
		for i := 1; i < 400; i++ {
			fmt.Fprintf(&b, `{{define \"t%d\"}}{{template \"t%d\"}}{{end}}`, i, i-1)
		}
		return b.String()
	}() + `{{template \"t399\"}}"}`
	objs := ksList(t, `[`+expandObj("c", data)+`]`)
	if errs := Templates(objs, nil, Limits{}); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := objs[0]["data"].(map[string]any)["a"]; got != "x0" {
		t.Fatalf("got %q", got)
	}
}

func TestValidateProperties(t *testing.T) {
	// Case 39: location-group and type are not identifiers usable as {{ .name }}.
	errs := ValidateProperties(map[string]string{
		"clusterURL": "u", "clusterName": "x", "location-group": "g", "type": "t", "nil": "", "ñame": "", "1a": "", "": "",
	}, field.NewPath("properties"))
	want := []string{"properties[]", "properties[1a]", "properties[location-group]", "properties[type]"}
	if len(errs) != len(want) {
		t.Fatalf("got %v", errs)
	}
	for i, w := range want {
		if errs[i].Field != w {
			t.Errorf("error %d at %s, want %s", i, errs[i].Field, w)
		}
	}
}

// BenchmarkExpand expands a typical destination: twenty objects, a few templated strings in
// each. The baseline in the same run is the walk over objects without templates.
func BenchmarkExpand(b *testing.B) {
	var objects string
	for i := range 20 {
		if i > 0 {
			objects += ","
		}
		objects += expandObj(fmt.Sprintf("c%d", i), `{"url":"https://loki/{{ .clusterName }}-{{.region}}","plain":"x","n":1,
			"cfg":"region={{.region}}\nzone={{ printf \"%s-a\" .region }}","list":["{{if eq .region \"east\"}}e{{end}}","y"]}`)
	}
	props := map[string]string{"clusterName": "c1", "region": "east"}
	b.Run("templates", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			objs := ksList(b, "["+objects+"]")
			b.StartTimer()
			if errs := Templates(objs, props, Limits{}); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("baseline-no-templates", func(b *testing.B) {
		plain := strings.ReplaceAll(objects, "{{", "((")
		for b.Loop() {
			b.StopTimer()
			objs := ksList(b, "["+plain+"]")
			b.StartTimer()
			if errs := Templates(objs, props, Limits{}); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}
