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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// BenchmarkProcess measures, per template, three things in the same run:
//   - baseline: encoding/json decoding each object into maps (UseNumber) and encoding it
//     again, the floor of any engine that walks maps;
//   - oneshot: Compile + Execute, a template given in the request;
//   - cached: Execute of a plan compiled once, a stored template.
//
// Compare oneshot and cached with the baseline of the same template (targets: below 1.0 and
// below 0.3), and ns/object across the synthetic sizes for linearity.
func BenchmarkProcess(b *testing.B) {
	benchmarkTemplates(b, []int{10, 100, 1000, 10000}, benchmarkTemplate)
}

// benchmarkTemplates runs bench on the real templates of testdata, then on synthetic ones of
// each size.
func benchmarkTemplates(b *testing.B, sizes []int, bench func(*testing.B, string, *templates.Template, Dialect)) {
	for _, file := range []string{"mysql-persistent.json", "django-psql-persistent.json", "cincinnati-deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			b.Fatal(err)
		}
		tmpl, dialect, err := DecodeTemplate(data)
		if err != nil {
			b.Fatal(err)
		}
		bench(b, strings.TrimSuffix(strings.TrimSuffix(file, ".json"), ".yaml"), tmpl, dialect)
	}
	for _, n := range sizes {
		bench(b, fmt.Sprintf("synthetic-%d", n), syntheticTemplate(n), Stencil)
	}
}

func benchmarkTemplate(b *testing.B, name string, tmpl *templates.Template, dialect Dialect) {
	req := Request{
		Parameters: map[string]string{"MYSQL_USER": "u", "NAME": "bench"},
		Labels:     map[string]string{"instance": "bench"},
		// The default generator, crypto/rand, as the server uses.
		IgnoreUnknownParameters: true,
	}
	objects := len(tmpl.Objects)
	perObject := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(objects), "ns/object")
	}
	b.Run(name+"/baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := mapRoundTrip(tmpl.Objects); err != nil {
				b.Fatal(err)
			}
		}
		perObject(b)
	})
	b.Run(name+"/oneshot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, errs := compileAndExecute(tmpl, dialect, req); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
		perObject(b)
	})
	b.Run(name+"/cached", func(b *testing.B) {
		plan, errs := Compile(tmpl, dialect)
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, errs := plan.Execute(req); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
		perObject(b)
	})
}

// mapRoundTrip is the baseline: what a map-based engine pays before doing any work.
func mapRoundTrip(objects []runtime.RawExtension) error {
	for _, o := range objects {
		dec := json.NewDecoder(bytes.NewReader(o.Raw))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return err
		}
		if _, err := json.Marshal(m); err != nil {
			return err
		}
	}
	return nil
}

// syntheticTemplate returns a template of n objects cycling through a Deployment, a Service,
// a ConfigMap and a Secret, with references of every kind and object labels.
func syntheticTemplate(n int) *templates.Template {
	t := &templates.Template{
		Parameters: []templates.Parameter{
			{Name: "NAME", Value: "app"},
			{Name: "IMAGE", Value: "registry.example.com/app:1.2.3"},
			{Name: "REPLICAS", Value: "3", Type: templates.ParameterTypeInt},
			{Name: "PASSWORD", Generate: templates.GeneratorExpression, From: "[a-zA-Z0-9]{16}"},
			{Name: "DEBUG", Value: "false", Type: templates.ParameterTypeBool},
		},
		ObjectLabels: map[string]string{"app": "${NAME}"},
	}
	for i := range n {
		var o string
		switch i % 4 {
		case 0:
			o = fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${NAME}-%[1]d","namespace":"fixed",
				"annotations":{"description":"Deployment number %[1]d of the synthetic benchmark template"}},
				"spec":{"replicas":"${{REPLICAS}}","selector":{"matchLabels":{"component":"c%[1]d"}},
				"template":{"metadata":{"labels":{"component":"c%[1]d"}},"spec":{"containers":[{"name":"main",
				"image":"${IMAGE}","args":["--debug=$(DEBUG)","--port","8080"],"ports":[{"containerPort":8080,"name":"http"}],
				"env":[{"name":"PASSWORD","valueFrom":{"secretKeyRef":{"name":"${NAME}-%[1]d","key":"password"}}},
				{"name":"LOG_LEVEL","value":"info"}],"resources":{"limits":{"cpu":"500m","memory":"256Mi"}},
				"readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":10}}]}}}}`, i)
		case 1:
			o = fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"${NAME}-%[1]d"},
				"spec":{"ports":[{"name":"http","port":80,"targetPort":8080}],"selector":{"component":"c%[1]d"}}}`, i)
		case 2:
			o = fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}-%[1]d"},
				"data":{"debug":"${{DEBUG}}","url":"https://${NAME}.example.com/%[1]d","static":"a fixed value that is long enough to matter"}}`, i)
		case 3:
			o = fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${NAME}-%[1]d"},
				"stringData":{"password":"${PASSWORD}","user":"admin"}}`, i)
		}
		t.Objects = append(t.Objects, runtime.RawExtension{Raw: []byte(o)})
	}
	return t
}

// compileAndExecute is a template processed once, as for a template given in a request.
func compileAndExecute(t *templates.Template, d Dialect, req Request) (*Result, field.ErrorList) {
	plan, errs := Compile(t, d)
	if len(errs) > 0 {
		return nil, errs
	}
	return plan.Execute(req)
}
