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

package integration

import (
	"encoding/json"
	"fmt"
	"strings"
)

// tpl is a Template named name with extra members (each starting with a comma).
func tpl(name, extra string) string {
	return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"` + name + `"}` + extra + `}`
}

// objects is the objects member holding each object.
func objects(list ...string) string { return `,"objects":[` + strings.Join(list, ",") + `]` }

// configMap is a ConfigMap whose data is the JSON object data.
func configMap(data string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":` + data + `}`
}

// expanding is a ConfigMap annotated for template expansion whose data.a is the JSON string a.
func expanding(a string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"control.kubestellar.io/expand-templates":"true"}},"data":{"a":` + a + `}}`
}

// generator is a template with one generated parameter.
func generator(from string) string {
	return tpl("gen", `,"parameters":[{"name":"P","generate":"expression","from":"`+from+`"}]`+objects(configMap(`{"a":"${P}"}`)))
}

// withTransformer is a template of one ConfigMap and one transformer config.
func withTransformer(config string) string {
	return tpl("tf", objects(configMap(`{}`))+`,"transformers":[`+config+`]`)
}

// customTransform is a CustomTransform with the given spec.
func customTransform(name, spec string) string {
	return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"CustomTransform","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

// pathsSpec binds to Services and removes n distinct paths of about size bytes.
func pathsSpec(n, size int) string {
	paths := make([]string, n)
	for i := range paths {
		p := fmt.Sprintf("$.spec.f%d", i)
		paths[i] = p + strings.Repeat("x", max(size-len(p), 0))
	}
	quoted, _ := json.Marshal(paths)
	return `{"resource":"services","remove":` + string(quoted) + `}`
}

// keys is n JSON members "kN":"v".
func keys(n int) string {
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf(`"k%d":"v"`, i)
	}
	return strings.Join(members, ",")
}

// processBody is a TemplateParameters body.
func processBody(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// specificCases are the findings of issue 17 and the abuse of each feature, one request each.
func specificCases() []hostileCase {
	T, PT := apiPath(hostileNS, "templates"), apiPath(hostileNS, "processedtemplates")
	FX := apiPath(hostileNS, "templates/"+fixtureTemplate)
	FXP := FX + "/processed"
	CTS := "/apis/templates.stencil.dev/v1alpha1/customtransforms"
	CTF := CTS + "/" + fixtureCT
	apply := FX + "?fieldManager=hostile"
	yamlTemplate := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: " + fixtureTemplate + "}\n"
	big := func(size int) string {
		var data strings.Builder
		for i := 0; data.Len() < size; i++ {
			fmt.Fprintf(&data, `"k%d":"%s",`, i, strings.Repeat("v", 1000))
		}
		return configMap("{" + strings.TrimSuffix(data.String(), ",") + "}")
	}
	unknown, undeclared := map[string]string{}, map[string]string{}
	for i := range 100_000 {
		unknown[fmt.Sprintf("NOT_DECLARED_%d", i)] = "x"
	}
	for i := range 4000 {
		undeclared[fmt.Sprintf("NOT_DECLARED_%d", i)] = "x"
	}
	manyProperties := make([]map[string]any, 2)
	for i := range manyProperties {
		properties := map[string]string{}
		for j := range 5000 {
			properties[fmt.Sprintf("p%d", j)] = "x"
		}
		manyProperties[i] = map[string]any{"name": fmt.Sprintf("d%d", i), "properties": properties}
	}
	destinations := make([]map[string]any, 64)
	for i := range destinations {
		destinations[i] = map[string]any{"name": fmt.Sprintf("d%d", i), "properties": map[string]string{"p": strings.Repeat("x", 40_000)}}
	}
	c := func(name, method, path, contentType, body string, want int) hostileCase {
		return hostileCase{name: name, method: method, path: path, contentType: contentType, body: []byte(body), want: want}
	}
	cases := []hostileCase{
		// Finding 3: numbers no float64 holds.
		c("401-digit integer in objects", "POST", T, ctJSON, tpl("n1", objects(configMap(`{"n":`+hugeInteger+`}`))), 400),
		c("1e400 in objects, dry run", "POST", T+"?dryRun=All", ctJSON, tpl("n2", objects(configMap(`{"n":1e400}`))), 400),
		c("1e400 in a transformer config", "POST", T, ctJSON, withTransformer(`{"apiVersion":"builtin","kind":"ReplicaCountTransformer","replica":{"name":"c","count":1e400}}`), 400),
		c("1e400 in transformerOverrides", "POST", T, ctJSON, tpl("n3", `,"transformerOverrides":[{"n":-1e400}]`), 400),
		c("1e400 replacing, dry run", "PUT", FX+"?dryRun=All", ctJSON, tpl(fixtureTemplate, objects(configMap(`{"n":1e400}`))), 400),
		c("1e400 in an OpenShift template", "POST", PT, ctJSON, `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"os"},"objects":[`+configMap(`{"n":-1e999}`)+`]}`, 400),
		c("${{P}} with P=1e400 stays a string", "POST", PT, ctJSON, tpl("n4", `,"parameters":[{"name":"P","value":"1e400"}]`+objects(configMap(`{"n":"${{P}}"}`))), 201),
		c("int parameter of 401 digits", "POST", PT, ctJSON, tpl("n5", `,"parameters":[{"name":"P","type":"int","value":"`+hugeInteger+`"}]`), 422),
		c("value 1e400 for a stored template", "POST", FXP, ctJSON, `{"parameters":{"P":"1e400"}}`, 201),
		// Finding 5: 500s where a 4xx belongs.
		c("template of 1.6 MB", "POST", T, ctJSON, tpl("big1", objects(big(1600<<10))), 422),
		c("template of 2.9 MB, dry run", "POST", T+"?dryRun=All", ctJSON, tpl("big2", objects(big(2900<<10))), 422),
		c("replacing with 1.1 MB", "PUT", FX, ctJSON, tpl(fixtureTemplate, objects(big(1100<<10))), 422),
		c("merge patch growing past 1 MiB", "PATCH", FX, ctMergePatch, `{"objects":[`+big(1100<<10)+`]}`, 422),
		c("apply growing past 1 MiB", "PATCH", apply+"&force=true", ctApply, yamlTemplate+"objects: ["+big(1100<<10)+"]\n", 422),
		c("replace with resourceVersion abc", "PUT", FX, ctJSON, strings.Replace(tpl(fixtureTemplate, ""), `"name":"fixture"`, `"name":"fixture","resourceVersion":"abc"`, 1), 422),
		c("merge patch to resourceVersion -1", "PATCH", FX, ctMergePatch, `{"metadata":{"resourceVersion":"-1"}}`, 422),
		c("CustomTransform replace with resourceVersion abc", "PUT", CTF, ctJSON, strings.Replace(customTransform(fixtureCT, pathsSpec(1, 10)), `"name":"fixture-ct"`, `"name":"fixture-ct","resourceVersion":"abc"`, 1), 422),
		c("strategic merge $patch bogus", "PATCH", FX, ctStrategic, `{"$patch":"bogus"}`, 400),
		c("strategic merge $patch bogus on a CustomTransform", "PATCH", CTF, ctStrategic, `{"$patch":"bogus"}`, 400),
		{name: "strategic merge $setElementOrder panicking the library", method: "PATCH", path: FX, contentType: ctStrategic,
			body: []byte(`{"$setElementOrder/parameters":[{"name":"Z"}],"parameters":[{"name":"P","value":"q"}]}`), want: 400, libraryPanic: true},
		c("apply parameters: notalist", "PATCH", apply, ctApply, yamlTemplate+"parameters: notalist\n", 400),
		c("apply duplicate parameter names", "PATCH", apply, ctApply, yamlTemplate+"parameters: [{name: A}, {name: A}]\n", 400),
		c("apply creating with duplicate names", "PATCH", T+"/applied?fieldManager=hostile", ctApply, strings.Replace(yamlTemplate, fixtureTemplate, "applied", 1)+"parameters: [{name: A}, {name: A}]\n", 400),
		c("apply spec: notamap to a CustomTransform", "PATCH", CTF+"?fieldManager=hostile", ctApply, "apiVersion: templates.stencil.dev/v1alpha1\nkind: CustomTransform\nmetadata: {name: fixture-ct}\nspec: notamap\n", 400),
		c("get at resourceVersion abc", "GET", FX+"?resourceVersion=abc", "", "", 400),
		c("watch from resourceVersion abc", "GET", T+"?watch=1&resourceVersion=abc", "", "", 400),
		c("list at resourceVersion abc", "GET", T+"?resourceVersion=abc", "", "", 400),
		c("get a CustomTransform at resourceVersion x", "GET", CTF+"?resourceVersion=x", "", "", 400),
		c("create with a resourceVersion", "POST", T, ctJSON, strings.Replace(tpl("rv", ""), `"name":"rv"`, `"name":"rv","resourceVersion":"5"`, 1), 422),
		c("create a CustomTransform with a resourceVersion", "POST", CTS, ctJSON, strings.Replace(customTransform("rv", pathsSpec(1, 10)), `"name":"rv"`, `"name":"rv","resourceVersion":"7"`, 1), 422),
		// Finding 6: CustomTransform limits.
		c("CustomTransform of 10,000 paths", "POST", CTS, ctJSON, customTransform("many", pathsSpec(10_000, 10)), 422),
		c("CustomTransform of 101 paths", "POST", CTS, ctJSON, customTransform("many", pathsSpec(101, 10)), 422),
		c("CustomTransform of a 1 MB path", "POST", CTS, ctJSON, customTransform("long", pathsSpec(1, 1<<20)), 422),
		c("CustomTransform kind of invalid UTF-8", "POST", CTS, ctJSON, customTransform("utf", `{"kind":"Wid`+"\xff\xfe"+`get","remove":["$.a"]}`), 422),
		c("CustomTransform kind with a slash", "POST", CTS, ctJSON, customTransform("slash", `{"kind":"apps/Deployment","remove":["$.a"]}`), 422),
		c("CustomTransform repeating a path", "POST", CTS, ctJSON, customTransform("twice", `{"resource":"services","remove":["$.a","$.a"]}`), 422),
		c("CustomTransform of 100 paths of 1 KiB", "POST", CTS, ctJSON, customTransform("limit", pathsSpec(100, 1024)), 201),
		c("CustomTransform with resource and kind", "POST", CTS, ctJSON, customTransform("both", `{"resource":"services","kind":"Service","remove":["$.a"]}`), 422),
		c("CustomTransform with a broken path", "POST", CTS, ctJSON, customTransform("broken", `{"resource":"services","remove":["$.spec[\"x"]}`), 422),
		c("CustomTransform renamed by PUT", "PUT", CTF, ctJSON, customTransform("other", pathsSpec(1, 10)), 400),
		c("CustomTransform remove as a map", "PATCH", CTF, ctStrategic, `{"spec":{"remove":{"a":1}}}`, 422),
		// Generator abuse.
		c("generator [a-z]{100000}", "POST", PT, ctJSON, generator("[a-z]{100000}"), 422),
		c("generator of 20 digits", "POST", PT, ctJSON, generator("[a-z]{99999999999999999999}"), 422),
		c("generator [\\\\w]{99999}", "POST", T, ctJSON, generator(`[\\w]{99999}`), 422),
		c("generator unclosed", "POST", T, ctJSON, generator("[a-z"), 422),
		c("generator [a-z]{0}", "POST", PT, ctJSON, generator("[a-z]{0}"), 422),
		// Expansion abuse.
		c("expansion ranging", "POST", PT, ctJSON, tpl("x", objects(expanding(`"{{range $i, $e := .clusterName}}x{{end}}"`))), 422),
		c("expansion defining a recursion", "POST", PT, ctJSON, tpl("x", objects(expanding(`"{{define \"a\"}}{{template \"a\"}}{{end}}{{template \"a\"}}"`))), 422),
		c("expansion of 2,000 nested ifs", "POST", PT, ctJSON, tpl("x", objects(expanding(`"`+strings.Repeat("{{if true}}", 2000)+"x"+strings.Repeat("{{end}}", 2000)+`"`))), 422),
		c("expansion of a missing key", "POST", PT, ctJSON, tpl("x", objects(expanding(`"{{.nope}}"`))), 422),
		c("expansion unterminated", "POST", PT, ctJSON, tpl("x", objects(expanding(`"{{"`))), 422),
		c("expansion calling", "POST", PT, ctJSON, tpl("x", objects(expanding(`"{{call .x}}"`))), 422),
		c("expansion padding to a gigabyte", "POST", PT, ctJSON, tpl("x", objects(expanding(`"{{printf \"%0999999999d\" 1}}"`))), 201),
		c("expansion repeating a 1 MB property", "POST", apiPath(hostileNS, "templates/expander/processed"), ctJSON, processBody(map[string]any{"properties": map[string]string{"p": strings.Repeat("x", 1<<20)}}), 422),
		// Substitution abuse: 5,000 references to a 20 KB value ask for 100 MB.
		c("substitution past the output budget", "POST", PT, ctJSON, tpl("s", `,"parameters":[{"name":"P","value":"`+strings.Repeat("v", 20_000)+`"}]`+objects(configMap(`{"a":"`+strings.Repeat("${P}", 5000)+`"}`))), 422),
		c("stored substitution past the output budget", "POST", apiPath(hostileNS, "templates/amplifier/processed"), ctJSON, processBody(map[string]any{"parameters": map[string]string{"P": strings.Repeat("v", 20_000)}}), 422),
		c("object labels not labels", "POST", PT, ctJSON, tpl("l", `,"objectLabels":{"-bad-":"`+strings.Repeat("x", 100)+`"}`+objects(configMap(`{}`))), 422),
		// The processing requests' own fields.
		// Beyond 4,096 values the body is refused while it is decoded; below, 1,000 problems
		// and a count of the rest are listed.
		c("100,000 values", "POST", FXP, ctJSON, processBody(map[string]any{"parameters": unknown}), 400),
		c("100,000 values ignored", "POST", FXP, ctJSON, processBody(map[string]any{"parameters": unknown, "ignoreUnknownParameters": true}), 400),
		c("4,000 undeclared parameters", "POST", FXP, ctJSON, processBody(map[string]any{"parameters": undeclared}), 422),
		c("10,000 properties over destinations", "POST", FXP, ctJSON, processBody(map[string]any{"destinations": manyProperties}), 400),
		c("10,000 parameters declared", "POST", PT, ctJSON, tpl("p", `,"parameters":[`+strings.TrimSuffix(strings.Repeat(`{"name":"P"},`, 10_000), ",")+`]`), 400),
		c("10,000 object labels", "POST", T, ctJSON, tpl("ol", `,"objectLabels":{`+keys(10_000)+`}`), 400),
		c("65 destinations", "POST", FXP, ctJSON, processBody(map[string]any{"destinations": make([]struct{}, 65)}), 422),
		c("64 destinations of 40 KB properties", "POST", FXP, ctJSON, processBody(map[string]any{"destinations": destinations}), 201),
		c("property names not identifiers", "POST", FXP, ctJSON, `{"properties":{"a-b":"x","1x":"y"}}`, 422),
		c("caller labels not labels", "POST", FXP, ctJSON, `{"labels":{"-bad-":"x"}}`, 422),
		c("processing under another name", "POST", FXP, ctJSON, `{"metadata":{"name":"other"}}`, 422),
		c("processing a ConfigMap", "POST", FXP, ctJSON, `{"apiVersion":"v1","kind":"ConfigMap"}`, 400),
		c("processing a missing template", "POST", T+"/absent/processed", ctJSON, `{}`, 404),
		c("GET processed", "GET", FXP, "", "", 405),
		c("PATCH processed", "PATCH", FXP, ctMergePatch, `{}`, 405),
		c("GET processedtemplates", "GET", PT, "", "", 405),
		c("processedtemplates with a ConfigMap", "POST", PT, ctJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, 400),
		c("processing 5,000 levels of nesting", "POST", PT, ctJSON, tpl("deep", objects(configMap(`{"x":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+`}`))), 201),
		c("OpenShift legacy apiVersion v1", "POST", PT, ctJSON, `{"apiVersion":"v1","kind":"Template","metadata":{"name":"os"},"objects":[`+configMap(`{"a":"${X}"}`)+`]}`, 201),
		// OpenShift tolerates a name declared twice (the last declaration wins) and so does its
		// dialect, with a warning; ours refuses it.
		c("OpenShift duplicate parameters", "POST", PT, ctJSON, `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"os"},"parameters":[{"name":"A"},{"name":"A"}]}`, 201),
		c("Stencil duplicate parameters", "POST", PT, ctJSON, `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"st"},"parameters":[{"name":"A"},{"name":"A"}]}`, 422),
		// Transformer abuse.
		c("patch target regex invalid", "POST", PT, ctJSON, withTransformer(`{"apiVersion":"builtin","kind":"PatchTransformer","patch":"{}","target":{"name":"((("}}`), 422),
		c("patch target regex too large", "POST", PT, ctJSON, withTransformer(`{"apiVersion":"builtin","kind":"PatchTransformer","patch":"{}","target":{"name":"a{1000}{1000}{1000}"}}`), 422),
		c("Kustomization with a remote resource", "POST", PT, ctJSON, withTransformer(`{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","resources":["https://example.com/x.yaml"]}`), 422),
		c("Kustomization reading a file", "POST", PT, ctJSON, withTransformer(`{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","resources":["../../../etc/passwd"]}`), 422),
		c("unknown transformer", "POST", T, ctJSON, withTransformer(`{"apiVersion":"builtin","kind":"NoSuchTransformer"}`), 422),
		c("importing a missing template", "POST", PT, ctJSON, tpl("imp", `,"transformersFrom":[{"name":"absent"}]`), 422),
	}
	return append(cases, formatCases(T, FX, CTS)...)
}
