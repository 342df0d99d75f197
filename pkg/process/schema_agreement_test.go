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
	"bytes"
	"encoding/json"
	"maps"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process/jsonschema"
	"stencil.dev/stencil/pkg/process/valuecheck"
)

// constraintsTemplate uses every constraint keyword, on every type, with json items and
// properties, a secret generated parameter and a required one with a default.
const constraintsTemplate = `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"every-constraint",
"annotations":{"openshift.io/display-name":"Every constraint","description":"All keywords at once"}},
"parameters":[
 {"name":"TIER","displayName":"Tier","value":"web","enum":["web","db","cache"]},
 {"name":"HOST","required":true,"pattern":"^[a-z][a-z0-9-]*$","minLength":2,"maxLength":8},
 {"name":"REPLICAS","type":"int","value":"3","minimum":"1","maximum":"10"},
 {"name":"SHARDS","type":"int","enum":["1","3","5"]},
 {"name":"RATIO","type":"number","minimum":"0.1","maximum":"1e3"},
 {"name":"WEIGHT","type":"number","enum":["0.5","2"]},
 {"name":"TLS","type":"bool","value":"false"},
 {"name":"CERT","type":"base64"},
 {"name":"PASSWORD","secret":true,"generate":"expression","from":"[a-z]{12}","minLength":8},
 {"name":"EXTRA","type":"json"},
 {"name":"ZONES","type":"json","items":{"type":"string","pattern":"^[a-z]+-[0-9]$"},"maxItems":2},
 {"name":"PORTS","type":"json","items":{"type":"int","minimum":"1","maximum":"65535"}},
 {"name":"ENDPOINT","type":"json","properties":{"host":{"type":"string","minLength":1},"port":{"type":"int","minimum":"1","maximum":"65535"},
   "ratio":{"type":"number","maximum":"1"},"on":{"type":"bool"},"extra":{"type":"json"}}},
 {"name":"OWNER","required":true,"value":"team"},
 {"name":"SHORT","maxLength":3,"multiline":true}],
"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"${TIER}${HOST}${REPLICAS}${SHARDS}${RATIO}${WEIGHT}${TLS}${CERT}",
 "b":"${PASSWORD}${EXTRA}${ZONES}${PORTS}${ENDPOINT}${OWNER}${SHORT}"}}]}`

// candidates are the values tried for each type, as a request carries them. They exclude
// what a schema instance cannot be or what the schema does not express (see
// docs/parameters.md): text that is no JSON for a json parameter, integers beyond ±1.8e308,
// and integers written with a fraction or an exponent (1.0, 1e2: a form holds the number
// 100 and writes it as 100).
var candidates = map[templates.ParameterType][]string{
	templates.ParameterTypeString: {"", "a", "ab", "web", "db", "gold", "abc-1", "Abc", "ünï", "ünïc", "abcdefghij", "x y", "line\nbreak"},
	templates.ParameterTypeInt:    {"", "0", "1", "3", "5", "10", "11", "-1", "007", "abc", "1.5", "-0.5", "true"},
	templates.ParameterTypeNumber: {"", "0.05", "0.1", "0.5", "0.50", "2", "2e0", "1e3", "1001", "-3", "abc", "1.", "7"},
	templates.ParameterTypeBool:   {"", "true", "false", "yes", "1"},
	templates.ParameterTypeBase64: {"", "aGVsbG8=", "aGVsbG8", "not base64!", "aGVs\nbG8="},
	templates.ParameterTypeJSON: {"", `null`, `1`, `"s"`, `true`, `[]`, `["eu-1","us-2"]`, `["eu-1","us-2","ap-3"]`, `["EU-1"]`, `[1,2]`, `[0]`, `[70000]`, `["a"]`, `{}`,
		`{"host":"h","port":80}`, `{"host":"","port":80}`, `{"port":0}`, `{"port":"80"}`, `{"ratio":1.5}`, `{"ratio":0.5,"on":true}`,
		`{"on":"yes"}`, `{"extra":[1]}`},
}

// TestSchemaAgreesWithServer checks that a standard JSON Schema validator, given the schema of
// jsonschema.ForTemplate, accepts exactly the value sets that processing accepts, over the
// templates of testdata and a template with every constraint.
func TestSchemaAgreesWithServer(t *testing.T) {
	sources := map[string][]byte{"every-constraint": []byte(constraintsTemplate)}
	for _, name := range []string{"mysql-persistent.json", "django-psql-persistent.json", "cincinnati-deployment.yaml", "proposal-mongodb.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		sources[name] = data
	}
	for name, data := range sources {
		t.Run(name, func(t *testing.T) {
			tmpl, d, err := DecodeTemplate(data)
			if err != nil {
				t.Fatal(err)
			}
			plan, errs := Compile(tmpl, d)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			schema := compileSchema(t, tmpl)
			sets := valueSets(tmpl)
			accepted := 0
			for _, values := range sets {
				_, errs := plan.Execute(Request{Parameters: values})
				instance := instanceOf(t, tmpl, values)
				verr := schema.Validate(instance)
				if (len(errs) == 0) != (verr == nil) {
					t.Errorf("values %q (instance %s): server errors %v, validator %v", values, mustJSON(t, instance), errs, verr)
				}
				if len(errs) == 0 {
					accepted++
				}
			}
			// Both verdicts must occur, or the comparison says little.
			t.Logf("%d of %d value sets accepted", accepted, len(sets))
			if accepted == 0 || accepted == len(sets) {
				t.Errorf("%d of %d value sets accepted: the cases do not tell the checks apart", accepted, len(sets))
			}
		})
	}
}

// compileSchema compiles the template's schema with the validator, content assertions on (so
// that contentEncoding base64 is checked, as the server checks base64).
func compileSchema(t *testing.T, tmpl *templates.Template) *validator.Schema {
	t.Helper()
	doc, err := json.Marshal(jsonschema.ForTemplate(tmpl))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := validator.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	c.AssertContent()
	if err := c.AddResource("schema.json", parsed); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v\n%s", err, doc)
	}
	return schema
}

// valueSets are no values, a value for an undeclared parameter, and, over a base of valid
// values for the parameters the caller must give, each candidate of its type for each
// parameter and random mixes.
func valueSets(tmpl *templates.Template) []map[string]string {
	base := map[string]string{}
	for i := range tmpl.Parameters {
		p := &tmpl.Parameters[i]
		if !p.Required || p.Value != "" || p.Generate != "" {
			continue
		}
		for _, v := range candidatesFor(p.Type) {
			if v != "" && valuecheck.OfType(p.Type, v) == nil && len(valuecheck.New(p).Violations(v)) == 0 {
				base[p.Name] = v
				break
			}
		}
	}
	with := func(name, value string) map[string]string {
		set := maps.Clone(base)
		set[name] = value
		return set
	}
	sets := []map[string]string{{}, base, with("UNDECLARED", "x")}
	for _, p := range tmpl.Parameters {
		for _, v := range candidatesFor(p.Type) {
			sets = append(sets, with(p.Name, v))
		}
	}
	r := rand.New(rand.NewSource(12))
	for range 200 {
		set := maps.Clone(base)
		for _, p := range tmpl.Parameters {
			if r.Intn(3) == 0 {
				c := candidatesFor(p.Type)
				set[p.Name] = c[r.Intn(len(c))]
			}
		}
		sets = append(sets, set)
	}
	return sets
}

func candidatesFor(t templates.ParameterType) []string {
	if t == "" {
		t = templates.ParameterTypeString
	}
	return candidates[t]
}

// instanceOf is the instance a form holds for the request's values, by the rules of
// docs/parameters.md: an empty value is a field left out, except for a required parameter
// without a generator, whose empty value the server refuses; a value of another type than
// the parameter's stays a string, which the schema refuses by its type.
func instanceOf(t *testing.T, tmpl *templates.Template, values map[string]string) any {
	t.Helper()
	types := map[string]*templates.Parameter{}
	for i := range tmpl.Parameters {
		types[tmpl.Parameters[i].Name] = &tmpl.Parameters[i]
	}
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteByte('{')
	for _, name := range names {
		value, p := values[name], types[name]
		if value == "" && p != nil && !(p.Required && p.Generate == "") {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(mustJSON(t, name) + ":" + typedMember(t, p, value))
	}
	b.WriteByte('}')
	instance, err := validator.UnmarshalJSON(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("%s: %v", b.String(), err)
	}
	return instance
}

// typedMember writes one value in its parameter's JSON type.
func typedMember(t *testing.T, p *templates.Parameter, value string) string {
	if p == nil || value == "" {
		return mustJSON(t, value)
	}
	numeric := p.Type == templates.ParameterTypeInt || p.Type == templates.ParameterTypeNumber
	switch {
	case numeric && json.Valid([]byte(value)) && valuecheck.OfType(templates.ParameterTypeNumber, value) == nil:
		return value // 1.5 for an int stays a number, which the schema's integer refuses
	case p.Type == templates.ParameterTypeInt && valuecheck.OfType(p.Type, value) == nil:
		n, _ := new(big.Int).SetString(value, 10) // 007
		return n.String()
	case (p.Type == templates.ParameterTypeBool || p.Type == templates.ParameterTypeJSON) && valuecheck.OfType(p.Type, value) == nil:
		return value
	}
	return mustJSON(t, value)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
