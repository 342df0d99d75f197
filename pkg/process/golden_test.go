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
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenCases are real OpenShift templates and the proposal's examples, processed with a
// seeded generator so that generated values are stable.
var goldenCases = []struct {
	name    string
	file    string
	dialect Dialect
	req     Request
}{
	{"mysql-persistent", "mysql-persistent.json", OpenShift,
		Request{Parameters: map[string]string{"MYSQL_USER": "u"}}},
	{"mysql-persistent-labels", "mysql-persistent.json", OpenShift,
		Request{Parameters: map[string]string{"MYSQL_USER": "u", "DATABASE_SERVICE_NAME": "db"}, Labels: map[string]string{"instance": "a"}}},
	{"django-psql-persistent", "django-psql-persistent.json", OpenShift,
		Request{Parameters: map[string]string{"NAMESPACE": "images", "APPLICATION_DOMAIN": "django.example.com"}}},
	{"cincinnati-deployment", "cincinnati-deployment.yaml", OpenShift,
		Request{Parameters: map[string]string{"ENVIRONMENT_SECRETS": `{"a":"b"}`}}},
	{"proposal-examples", "proposal-examples.yaml", Stencil, Request{}},
	{"proposal-mongodb", "proposal-mongodb.json", Stencil,
		Request{Parameters: map[string]string{"MONGODB_PASSWORD": "s3cret", "REPLICA_COUNT": "3"}, Labels: map[string]string{"instance": "a"}}},
}

// golden is what a golden file holds: everything a caller gets back.
type golden struct {
	List       jsontext.Value `json:"list"`
	Message    string         `json:"message"`
	Parameters []goldenParam  `json:"parameters"`
	Warnings   []string       `json:"warnings"`
}

type goldenParam struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			tmpl, dialect, err := DecodeTemplate(data)
			if err != nil {
				t.Fatal(err)
			}
			if dialect != tc.dialect {
				t.Fatalf("dialect %v, want %v", dialect, tc.dialect)
			}
			r, errs := processCase(t, string(data), tc.req)
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			if len(r.Objects) != len(tmpl.Objects) {
				t.Errorf("%d objects, want %d", len(r.Objects), len(tmpl.Objects))
			}
			g := golden{List: jsontext.Value(ListBytes(r.Objects)), Message: r.Message, Warnings: r.Warnings}
			for _, p := range r.Parameters {
				g.Parameters = append(g.Parameters, goldenParam{Name: p.Name, Value: p.Value})
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", tc.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./pkg/process -run TestGolden -update)", err)
			}
			if string(got) != string(want) {
				t.Errorf("output differs from %s (run with -update and review the diff):\n%s", path, got)
			}
		})
	}
}
