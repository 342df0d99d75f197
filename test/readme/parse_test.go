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

package readme

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	doc := strings.Join([]string{
		"Prose.",
		"```sh",
		"export A=1   # a trailing comment is part of the command",
		"kubectl get templates",
		"# NAME    AGE",
		"# redis   5s",
		"",
		"# prose after a blank line",
		"kubectl create -f - <<'YAML'",
		"kind: Template",
		"YAML",
		"# created",
		"stencil process \\",
		"  -p A=1",
		"```",
		"```yaml",
		"kind: NotShell",
		"```",
		"```sh cluster",
		"kubectl apply -f -",
		"```",
		"```sh manual",
		"make test",
		"```",
	}, "\n")
	blocks, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Kind: Local, Line: 2, Commands: []Command{
			{Line: 3, Text: "export A=1   # a trailing comment is part of the command"},
			{Line: 4, Text: "kubectl get templates", Want: []string{"NAME    AGE", "redis   5s"}},
			{Line: 9, Text: "kubectl create -f - <<'YAML'\nkind: Template\nYAML", Want: []string{"created"}},
			{Line: 13, Text: "stencil process \\\n  -p A=1"},
		}},
		{Kind: Cluster, Line: 19, Commands: []Command{{Line: 20, Text: "kubectl apply -f -"}}},
		{Kind: Manual, Line: 22, Commands: []Command{{Line: 23, Text: "make test"}}},
	}
	if !reflect.DeepEqual(blocks, want) {
		t.Errorf("got  %+v\nwant %+v", blocks, want)
	}

	for _, bad := range []string{"```bash\nls\n```", "```sh later\nls\n```", "```sh\nls\n", "```sh\ncat <<EOF\nx\n```"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		want   []string
		output string
		ok     bool
	}{
		{[]string{"NAME    PARAMETERS   AGE", "redis   3            5s"}, "NAME    PARAMETERS   AGE\nredis   3            2m10s\n", true},
		{[]string{"NAME AGE", "redis 5s"}, "NAME AGE\nredis 5s\nmore 1s\n", false},
		{[]string{"redis 5s"}, "redis five", false},
		{[]string{"password: ..."}, "password: x8Jd0q\n", true},
		{[]string{`{"kind":"List",...`}, `{"kind":"List","items":[]}`, true},
		{[]string{`{"kind":"List",...`}, `{"kind":"Lost","items":[]}`, false},
		{[]string{"GROUP: a", "...", "last"}, "GROUP: a\n\nx\ny\nlast  \n", true},
		{[]string{"GROUP: a", "...", "last"}, "GROUP: a\nlast\n", true},
		{[]string{"GROUP: a", "...", "last"}, "GROUP: b\nlast\n", false},
		{[]string{"created"}, "", false},
	}
	for _, tc := range cases {
		if got := Match(tc.want, tc.output); got != tc.ok {
			t.Errorf("Match(%q, %q) = %v", tc.want, tc.output, got)
		}
	}
}
