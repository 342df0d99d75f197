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

	"stencil.dev/stencil/pkg/transform"
)

func TestSelectObjects(t *testing.T) {
	cases := []struct {
		name    string
		objects []string
		// kept are the names kept; skipped maps the names left out to part of the reason.
		kept    []string
		skipped map[string]string
	}{{
		name: "namespace defaults",
		objects: []string{
			`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`,
			`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"app"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kube-root-ca.crt"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"openshift-service-ca.crt"}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"default"}}`,
		},
		kept:    []string{"app", "default"},
		skipped: map[string]string{"default": "ServiceAccount controller", "kube-root-ca.crt": "root CA", "openshift-service-ca.crt": "service CA"},
	}, {
		name: "owned by an object read, or by a controller not read",
		objects: []string{
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","uid":"d1"}}`,
			`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-5d4f","uid":"r1","ownerReferences":[{"kind":"Deployment","name":"web","uid":"d1","controller":true}]}}`,
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-5d4f-x","ownerReferences":[{"kind":"ReplicaSet","name":"web-5d4f","uid":"r1","controller":true}]}}`,
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"other-x","ownerReferences":[{"kind":"ReplicaSet","name":"other","uid":"r9","controller":true}]}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"helper","ownerReferences":[{"kind":"Widget","name":"w","uid":"w9"}]}}`,
			`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"nightly","uid":"c1"}}`,
			`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"nightly-1","ownerReferences":[{"kind":"CronJob","name":"nightly","uid":"c1","controller":true}]}}`,
			`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"migrate"}}`,
		},
		kept: []string{"web", "helper", "nightly", "migrate"},
		skipped: map[string]string{"web-5d4f": "owned by Deployment web", "web-5d4f-x": "owned by ReplicaSet web-5d4f",
			"other-x": "managed by ReplicaSet other, which is not exported", "nightly-1": "owned by CronJob nightly"},
	}, {
		name: "endpoints of Services and controller-made slices",
		objects: []string{
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"selector":{"app":"web"}}}`,
			`{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"web"}}`,
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"external"},"spec":{}}`,
			`{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"external"}}`,
			`{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"labelled","labels":{"endpoints.kubernetes.io/managed-by":"endpoint-controller"}}}`,
			`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"web-abc","labels":{"endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io"}}}`,
			`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"manual"}}`,
		},
		kept:    []string{"web", "external", "external", "manual"},
		skipped: map[string]string{"web": "endpoints controller", "labelled": "endpoints controller", "web-abc": "endpointslice-controller.k8s.io"},
	}, {
		name: "tokens the token controller made",
		objects: []string{
			`{"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/service-account-token","metadata":{"name":"app-token-x7k2p","annotations":{"kubernetes.io/service-account.name":"app"}}}`,
			`{"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/service-account-token","metadata":{"name":"app-long-lived","annotations":{"kubernetes.io/service-account.name":"app"}}}`,
		},
		kept:    []string{"app-long-lived"},
		skipped: map[string]string{"app-token-x7k2p": "token controller made it for ServiceAccount app"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kept, skipped := selectObjects(decode(t, tc.objects...))
			var names []string
			for _, obj := range kept {
				names = append(names, transform.NestedString(obj, "metadata", "name"))
			}
			if strings.Join(names, ",") != strings.Join(tc.kept, ",") {
				t.Errorf("kept %v, want %v", names, tc.kept)
			}
			if len(skipped) != len(tc.skipped) {
				t.Errorf("skipped %v, want %v", skipped, tc.skipped)
			}
			for _, s := range skipped {
				name := s.Object[strings.LastIndexByte(s.Object, ' ')+1:]
				if want, ok := tc.skipped[name]; !ok || !strings.Contains(s.Reason, want) {
					t.Errorf("%s skipped because %q, want a reason with %q", s.Object, s.Reason, want)
				}
			}
		})
	}
}
