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
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/process"
)

// liveApp is an application as the API server returns it: server fields, defaults, a Secret
// applied with kubectl (whose last-applied annotation repeats the value) and what every
// namespace gets.
var liveApp = []string{
	`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default","namespace":"prod","uid":"sa0"}}`,
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kube-root-ca.crt","namespace":"prod"},"data":{"ca.crt":"x"}}`,
	`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"shop","namespace":"prod","uid":"sa1","resourceVersion":"10",
		"creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"shop"}}}`,
	`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"shop-db","namespace":"prod","uid":"s1","resourceVersion":"11","labels":{"app":"shop"},
		"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"stringData\":{\"password\":\"hunter2\"}}"}},
		"type":"Opaque","data":{"password":"aHVudGVyMg=="}}`,
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shop-config","namespace":"prod","uid":"c1","labels":{"app":"shop"},
		"managedFields":[{"manager":"kubectl"}]},"data":{"start.sh":"exec server --home ${HOME}"}}`,
	`{"apiVersion":"v1","kind":"Service","metadata":{"name":"shop","namespace":"prod","uid":"v1","labels":{"app":"shop"}},
		"spec":{"type":"ClusterIP","clusterIP":"10.96.0.12","clusterIPs":["10.96.0.12"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",
		"internalTrafficPolicy":"Cluster","sessionAffinity":"None","selector":{"app":"shop"},
		"ports":[{"name":"http","port":80,"targetPort":8080,"protocol":"TCP"}]},"status":{"loadBalancer":{}}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"shop","namespace":"prod","uid":"d1","generation":3,"labels":{"app":"shop"},
		"annotations":{"deployment.kubernetes.io/revision":"3"}},
		"spec":{"replicas":2,"revisionHistoryLimit":10,"progressDeadlineSeconds":600,"selector":{"matchLabels":{"app":"shop"}},
		"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},
		"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"shop"}},"spec":{"serviceAccountName":"shop","serviceAccount":"shop",
		"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30,
		"containers":[{"name":"web","image":"registry.example.com/shop:1.4","imagePullPolicy":"IfNotPresent","resources":{},
		"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
		"env":[{"name":"PASSWORD","valueFrom":{"secretKeyRef":{"name":"shop-db","key":"password"}}}],
		"volumeMounts":[{"name":"config","mountPath":"/etc/shop"}]}],
		"volumes":[{"name":"config","configMap":{"name":"shop-config","defaultMode":420}}]}}},
		"status":{"replicas":2,"readyReplicas":2}}`,
	`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"shop-5d4f","namespace":"prod","uid":"r1",
		"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"shop","uid":"d1","controller":true}]}}`,
}

// TestExportReproduces processes the exported template with the values the objects had and
// finds the objects that were read, without what the server and controllers wrote.
func TestExportReproduces(t *testing.T) {
	res, err := Export(decode(t, liveApp...), Options{Name: "shop", Parameterize: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Escaped, ",") != "v1 ConfigMap shop-config" {
		t.Errorf("escaped text reported in %v, want the ConfigMap only", res.Escaped)
	}
	if len(res.Skipped) != 3 {
		t.Errorf("skipped %v, want default, kube-root-ca.crt and the ReplicaSet", res.Skipped)
	}
	for _, raw := range res.Template.Objects {
		for _, leak := range []string{"hunter2", "aHVudGVyMg", "uid", "resourceVersion", "10.96.0.12", "status", "creationTimestamp", "managedFields", "prod"} {
			if strings.Contains(string(raw.Raw), leak) {
				t.Errorf("%q in the template: %s", leak, raw.Raw)
			}
		}
	}
	plan, errs := process.Compile(res.Template, process.Stencil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	out, errs := plan.Execute(process.Request{Parameters: map[string]string{"DB_PASSWORD": "hunter2"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []string{
		`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"shop","labels":{"app":"shop"}}}`,
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"shop-db","labels":{"app":"shop"}},"stringData":{"password":"hunter2"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shop-config","labels":{"app":"shop"}},"data":{"start.sh":"exec server --home ${HOME}"}}`,
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"shop","labels":{"app":"shop"}},
		"spec":{"selector":{"app":"shop"},"ports":[{"name":"http","port":80,"targetPort":8080}]}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"shop","labels":{"app":"shop"}},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"shop"}},
		"template":{"metadata":{"labels":{"app":"shop"}},"spec":{"serviceAccountName":"shop",
		"containers":[{"name":"web","image":"registry.example.com/shop:1.4",
		"env":[{"name":"PASSWORD","valueFrom":{"secretKeyRef":{"name":"shop-db","key":"password"}}}],
		"volumeMounts":[{"name":"config","mountPath":"/etc/shop"}]}],
		"volumes":[{"name":"config","configMap":{"name":"shop-config"}}]}}}}`,
	}
	if len(out.Objects) != len(want) {
		t.Fatalf("%d objects, want %d", len(out.Objects), len(want))
	}
	for i, raw := range out.Objects {
		same(t, decode(t, string(raw))[0], want[i])
	}
	var names []string
	for _, p := range res.Template.Parameters {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "NAME,WEB_IMAGE,REPLICAS,DB_PASSWORD" {
		t.Errorf("parameters %s", got)
	}
}

// namespaceOf returns n objects of an application of the default kinds, as read.
func namespaceOf(n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		name := fmt.Sprintf("shop-%d", i)
		out = append(out,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"`+name+`","namespace":"prod","uid":"d`+name+`","labels":{"app":"shop"},
			"managedFields":[{"manager":"kubectl","fieldsV1":{"f:spec":{}}}]},"spec":{"replicas":2,"revisionHistoryLimit":10,
			"selector":{"matchLabels":{"app":"shop","part":"`+name+`"}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"shop","part":"`+name+`"}},
			"spec":{"dnsPolicy":"ClusterFirst","containers":[{"name":"web","image":"shop:1","imagePullPolicy":"IfNotPresent","resources":{},
			"envFrom":[{"configMapRef":{"name":"`+name+`"}},{"secretRef":{"name":"`+name+`"}}]}]}}},"status":{"replicas":2}}`,
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"`+name+`","namespace":"prod","uid":"v`+name+`","labels":{"app":"shop"}},
			"spec":{"clusterIP":"10.96.0.1","selector":{"app":"shop","part":"`+name+`"},"ports":[{"port":80,"targetPort":80,"protocol":"TCP"}]}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+name+`","namespace":"prod","uid":"c`+name+`","labels":{"app":"shop"}},
			"data":{"config.yaml":"`+strings.Repeat("key: value\\n", 40)+`"}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"`+name+`","namespace":"prod","uid":"s`+name+`","labels":{"app":"shop"}},
			"data":{"password":"`+base64.StdEncoding.EncodeToString([]byte(name))+`"}}`,
			`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"`+name+`","namespace":"prod","uid":"a`+name+`","labels":{"app":"shop"}}}`,
		)
	}
	return out[:n]
}

// BenchmarkExport500 exports a namespace of 500 objects (100 each of Deployments, Services,
// ConfigMaps, Secrets and ServiceAccounts), from decoded objects to the validated Template,
// beside its baseline: encoding/json writing the same objects, what printing them as read
// (kubectl get -o json) costs at least.
func BenchmarkExport500(b *testing.B) {
	docs := namespaceOf(500)
	b.Run("export", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			objects := decode(b, docs...)
			b.StartTimer()
			res, err := Export(objects, Options{Name: "shop", Parameterize: true})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Template.Objects) != 500 {
				b.Fatalf("%d objects", len(res.Template.Objects))
			}
		}
	})
	b.Run("baseline-encoding-json", func(b *testing.B) {
		objects := decode(b, docs...)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(objects); err != nil {
				b.Fatal(err)
			}
		}
	})
}
