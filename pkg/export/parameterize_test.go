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

package export

import (
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
)

func TestDetectName(t *testing.T) {
	cases := []struct {
		name    string
		objects []string
		want    string
	}{
		{"the instance label", []string{
			`{"kind":"ConfigMap","metadata":{"name":"x","labels":{"app.kubernetes.io/instance":"shop","app":"other"}}}`,
			`{"kind":"ConfigMap","metadata":{"name":"y"}}`,
		}, "shop"},
		{"the app label when instances differ", []string{
			`{"kind":"ConfigMap","metadata":{"name":"x","labels":{"app.kubernetes.io/instance":"a","app":"shop"}}}`,
			`{"kind":"ConfigMap","metadata":{"name":"y","labels":{"app.kubernetes.io/instance":"b","app":"shop"}}}`,
		}, "shop"},
		{"the name prefix at a separator", []string{
			`{"kind":"ConfigMap","metadata":{"name":"shop-web"}}`,
			`{"kind":"ConfigMap","metadata":{"name":"shop-db"}}`,
			`{"kind":"ConfigMap","metadata":{"name":"shop"}}`,
		}, "shop"},
		{"no prefix inside a word", []string{
			`{"kind":"ConfigMap","metadata":{"name":"shopping"}}`,
			`{"kind":"ConfigMap","metadata":{"name":"shop-db"}}`,
		}, ""},
		{"labels that disagree and no prefix", []string{
			`{"kind":"ConfigMap","metadata":{"name":"a","labels":{"app":"a"}}}`,
			`{"kind":"ConfigMap","metadata":{"name":"b","labels":{"app":"b"}}}`,
		}, ""},
		{"one object", []string{`{"kind":"ConfigMap","metadata":{"name":"web.v2"}}`}, "web.v2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := detectName(decode(t, tc.objects...)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParameterName(t *testing.T) {
	for in, want := range map[string]string{"web": "WEB", "my-app.v2": "MY_APP_V2", "7up": "_7UP", "": "_"} {
		if got := parameterName(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if got := parameterName("db", "", "tls.crt"); got != "DB_TLS_CRT" {
		t.Errorf("parts: %q", got)
	}
}

// exportCase exports objects and checks the objects and parameters of the template.
type exportCase struct {
	name    string
	opts    Options
	objects []string
	// want are the template's objects; params the parameters as NAME=value (required marked
	// with !, secret with *, int with #).
	want   []string
	params []string
}

func runExportCases(t *testing.T, cases []exportCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Name = "exported"
			res, err := Export(decode(t, tc.objects...), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Template.Objects) != len(tc.want) {
				t.Fatalf("%d objects, want %d", len(res.Template.Objects), len(tc.want))
			}
			for i, raw := range res.Template.Objects {
				same(t, decode(t, string(raw.Raw))[0], tc.want[i])
			}
			var params []string
			for _, p := range res.Template.Parameters {
				params = append(params, describeParameter(p))
				if p.DisplayName == "" || p.Description == "" {
					t.Errorf("parameter %s has no display name or description", p.Name)
				}
			}
			if strings.Join(params, " ") != strings.Join(tc.params, " ") {
				t.Errorf("parameters\n  %s\nwant\n  %s", strings.Join(params, " "), strings.Join(tc.params, " "))
			}
		})
	}
}

func describeParameter(p templates.Parameter) string {
	s := p.Name + "=" + p.Value
	if p.Required {
		s += "!"
	}
	if p.Secret {
		s += "*"
	}
	if p.Type == templates.ParameterTypeInt {
		s += "#"
	} else if p.Type == templates.ParameterTypeBase64 {
		s += "(base64)"
	}
	return s
}

func TestParameterize(t *testing.T) {
	on := Options{Parameterize: true}
	runExportCases(t, []exportCase{{
		name: "the namespace is dropped, from RoleBinding subjects of the same namespace too",
		opts: on,
		objects: []string{
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"rb","namespace":"a"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
			"subjects":[{"kind":"ServiceAccount","name":"x","namespace":"a"},{"kind":"ServiceAccount","name":"y","namespace":"other"},{"kind":"User","name":"u","apiGroup":"rbac.authorization.k8s.io"}]}`,
		},
		want: []string{`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"${NAME}"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
			"subjects":[{"kind":"ServiceAccount","name":"x"},{"kind":"ServiceAccount","name":"y","namespace":"other"},{"kind":"User","name":"u","apiGroup":"rbac.authorization.k8s.io"}]}`},
		params: []string{"NAME=rb!"},
	}, {
		name: "NAME in names, labels, selectors, references and a Service named in the environment",
		opts: on,
		objects: []string{
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"shop-db","namespace":"a","labels":{"app":"shop","tier":"shop-db"}},
			"spec":{"selector":{"app":"shop","tier":"shop-db"},"ports":[{"port":5432}]}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shop-config","namespace":"a","labels":{"app":"shop"}},"data":{"k":"shop"}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"shop","namespace":"a","labels":{"app":"shop"}},
			"spec":{"selector":{"matchLabels":{"app":"shop"},"matchExpressions":[{"key":"app","operator":"In","values":["shop","other"]}]},
			"template":{"metadata":{"labels":{"app":"shop"}},"spec":{"containers":[{"name":"web","image":"shop:1",
			"env":[{"name":"DB","value":"shop-db"},{"name":"OTHER","value":"shop-dbx"}],
			"envFrom":[{"configMapRef":{"name":"shop-config"}}]}]}}}}`,
		},
		want: []string{
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}-config","labels":{"app":"${NAME}"}},"data":{"k":"shop"}}`,
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"${NAME}-db","labels":{"app":"${NAME}","tier":"${NAME}-db"}},
			"spec":{"selector":{"app":"${NAME}","tier":"${NAME}-db"},"ports":[{"port":5432}]}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${NAME}","labels":{"app":"${NAME}"}},
			"spec":{"selector":{"matchLabels":{"app":"${NAME}"},"matchExpressions":[{"key":"app","operator":"In","values":["${NAME}","other"]}]},
			"template":{"metadata":{"labels":{"app":"${NAME}"}},"spec":{"containers":[{"name":"web","image":"${WEB_IMAGE}",
			"env":[{"name":"DB","value":"${NAME}-db"},{"name":"OTHER","value":"shop-dbx"}],
			"envFrom":[{"configMapRef":{"name":"${NAME}-config"}}]}]}}}}`,
		},
		params: []string{"NAME=shop!", "WEB_IMAGE=shop:1!"},
	}, {
		name: "images: one parameter per container name and image, the workload's name when two images share a container name",
		opts: on,
		objects: []string{
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"app-a"},"spec":{"template":{"spec":{
			"initContainers":[{"name":"init-db","image":"busybox:1"}],"containers":[{"name":"web","image":"web:1"},{"name":"sidecar","image":"proxy:2"}]}}}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"app-b"},"spec":{"template":{"spec":{
			"containers":[{"name":"web","image":"web:2"},{"name":"sidecar","image":"proxy:2"}]}}}}`,
			`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"app-c"},"spec":{"jobTemplate":{"spec":{"template":{"spec":{
			"restartPolicy":"Never","containers":[{"name":"job","image":"job:1"}]}}}}}}`,
		},
		want: []string{
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${NAME}-a"},"spec":{"template":{"spec":{
			"initContainers":[{"name":"init-db","image":"${INIT_DB_IMAGE}"}],"containers":[{"name":"web","image":"${WEB_IMAGE}"},{"name":"sidecar","image":"${SIDECAR_IMAGE}"}]}}}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${NAME}-b"},"spec":{"template":{"spec":{
			"containers":[{"name":"web","image":"${B_WEB_IMAGE}"},{"name":"sidecar","image":"${SIDECAR_IMAGE}"}]}}}}`,
			`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"${NAME}-c"},"spec":{"jobTemplate":{"spec":{"template":{"spec":{
			"restartPolicy":"Never","containers":[{"name":"job","image":"${JOB_IMAGE}"}]}}}}}}`,
		},
		params: []string{"NAME=app!", "INIT_DB_IMAGE=busybox:1!", "WEB_IMAGE=web:1!", "SIDECAR_IMAGE=proxy:2!", "B_WEB_IMAGE=web:2!", "JOB_IMAGE=job:1!"},
	}, {
		name: "replicas become int parameters named after their objects",
		opts: on,
		objects: []string{
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"shop"},"spec":{"replicas":3}}`,
			`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"shop-db"},"spec":{"replicas":1}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"shop-w"},"spec":{"replicas":2}}`,
		},
		want: []string{
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${NAME}"},"spec":{"replicas":"${{REPLICAS}}"}}`,
			`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"${NAME}-db"},"spec":{"replicas":"${{DB_REPLICAS}}"}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"${NAME}-w"},"spec":{"replicas":"${{W_REPLICAS}}"}}`,
		},
		params: []string{"NAME=shop!", "REPLICAS=3!#", "DB_REPLICAS=1!#", "W_REPLICAS=2!#"},
	}, {
		name: "the strings of the objects are escaped, so that processing gives them back",
		opts: on,
		objects: []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},
			"data":{"run.sh":"echo ${HOME} $(NAME) $(PATH)"}}`},
		want:   []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"run.sh":"echo $${HOME} $$(NAME) $(PATH)"}}`},
		params: []string{"NAME=c!"},
	}, {
		name: "no parameters without Parameterize but for Secret values",
		objects: []string{
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"shop","namespace":"a"},"spec":{"replicas":3,
			"template":{"spec":{"containers":[{"name":"web","image":"shop:1"}]}}}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"shop","namespace":"a"},"data":{"password":"c2VjcmV0"}}`,
		},
		want: []string{
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"shop","namespace":"a"},"stringData":{"password":"${SHOP_PASSWORD}"}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"shop","namespace":"a"},"spec":{"replicas":3,
			"template":{"spec":{"containers":[{"name":"web","image":"shop:1"}]}}}}`,
		},
		params: []string{"SHOP_PASSWORD=!*"},
	}})
}

func TestNameParameter(t *testing.T) {
	cases := []struct {
		names   []string
		pattern string
		warning bool
	}{
		{[]string{"shop", "shop-db"}, dnsLabel().String(), false},
		{[]string{"web.v2"}, "", false},
		{[]string{"a", "b"}, "", true},
	}
	for _, tc := range cases {
		var objects []string
		for _, n := range tc.names {
			objects = append(objects, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+n+`"}}`)
		}
		res, err := Export(decode(t, objects...), Options{Name: "t", Parameterize: true})
		if err != nil {
			t.Fatal(err)
		}
		pattern := ""
		for _, p := range res.Template.Parameters {
			if p.Name == NameParameter {
				pattern = p.Pattern
			}
		}
		if pattern != tc.pattern || (len(res.Warnings) > 0) != tc.warning {
			t.Errorf("%v: pattern %q, warnings %q; want pattern %q, a warning %t", tc.names, pattern, res.Warnings, tc.pattern, tc.warning)
		}
	}
}

func TestSecrets(t *testing.T) {
	secret := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"shop-db","labels":{"app":"shop"},
		"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"password\":\"c2VjcmV0\"}}"}},
		"type":"Opaque","data":{"password":"c2VjcmV0","tls.key":"/w==","empty":""}}`
	runExportCases(t, []exportCase{{
		name:    "values become required secret parameters without a default, text through stringData",
		opts:    Options{Parameterize: true},
		objects: []string{secret},
		want: []string{`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${NAME}-db","labels":{"app":"${NAME}"}},
			"data":{"tls.key":"${DB_TLS_KEY}","empty":""},"stringData":{"password":"${DB_PASSWORD}"}}`},
		params: []string{"NAME=shop!", "DB_PASSWORD=!*", "DB_TLS_KEY=!*(base64)"},
	}, {
		name:    "values are kept when asked",
		opts:    Options{Parameterize: true, IncludeSecretValues: true},
		objects: []string{secret},
		want: []string{`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${NAME}-db","labels":{"app":"${NAME}"}},
			"data":{"password":"c2VjcmV0","tls.key":"/w==","empty":""}}`},
		params: []string{"NAME=shop!"},
	}})
}
