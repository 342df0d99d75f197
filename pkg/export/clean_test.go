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
	"testing"

	"stencil.dev/stencil/pkg/transform"
)

func TestClean(t *testing.T) {
	cases := []struct{ name, in, want string }{{
		name: "the project's cleanup rules run first",
		in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","uid":"u","resourceVersion":"7","generation":2,
			"managedFields":[{}],"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
			"spec":{"clusterIP":"10.0.0.9","clusterIPs":["10.0.0.9"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",
			"sessionAffinity":"None","internalTrafficPolicy":"Cluster","ports":[{"port":80,"nodePort":30080}]},"status":{"loadBalancer":{}}}`,
		want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}}`,
	}, {
		name: "a headless Service stays headless and preserved node ports stay",
		in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"nodeport"}},
			"spec":{"clusterIP":"None","clusterIPs":["None"],"ports":[{"port":80,"nodePort":30080}]}}`,
		want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"nodeport"}},
			"spec":{"clusterIP":"None","clusterIPs":["None"],"ports":[{"port":80,"nodePort":30080}]}}`,
	}, {
		name: "server timestamps",
		in:   `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","creationTimestamp":"2026-01-01T00:00:00Z","deletionTimestamp":"x","deletionGracePeriodSeconds":30}}`,
		want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`,
	}, {
		name: "kubectl annotations on the object and its pod template, controllers' annotations",
		in: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","annotations":{"deployment.kubernetes.io/revision":"3",
			"kubectl.kubernetes.io/default-container":"c","team":"a"}},
			"spec":{"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"d"},
			"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-01-01T00:00:00Z"}},"spec":{}}}}`,
		want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","annotations":{"team":"a"}},
			"spec":{"template":{"metadata":{"labels":{"app":"d"}},"spec":{}}}}`,
	}, {
		name: "a CronJob's job template",
		in: `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},"spec":{"jobTemplate":{"metadata":{"creationTimestamp":null},
			"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{}}}}}}`,
		want: `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},"spec":{"jobTemplate":{"spec":{"template":{"spec":{}}}}}}`,
	}, {
		name: "a token Secret loses the token the controller wrote",
		in: `{"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/service-account-token","metadata":{"name":"t",
			"annotations":{"kubernetes.io/service-account.name":"app","kubernetes.io/service-account.uid":"u1"}},"data":{"token":"eA=="}}`,
		want: `{"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/service-account-token","metadata":{"name":"t",
			"annotations":{"kubernetes.io/service-account.name":"app"}}}`,
	}, {
		name: "a ServiceAccount loses the tokens made for it",
		in:   `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"app"},"secrets":[{"name":"app-token-x7k2p"},{"name":"registry"}]}`,
		want: `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"app"},"secrets":[{"name":"registry"}]}`,
	}, {
		name: "a claim bound by the controller loses the binding; one bound by hand keeps it",
		in: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"p","annotations":{"pv.kubernetes.io/bind-completed":"yes",
			"pv.kubernetes.io/bound-by-controller":"yes","volume.kubernetes.io/storage-provisioner":"x"}},"spec":{"volumeName":"pvc-123"}}`,
		want: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"p"},"spec":{}}`,
	}, {
		name: "a claim bound by hand keeps its volume",
		in:   `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"p"},"spec":{"volumeName":"mine"}}`,
		want: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"p"},"spec":{"volumeName":"mine"}}`,
	}, {
		name: "a Job loses the labels and selector of the Job controller",
		in: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","labels":{"app":"j"}},"spec":{"selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"u"}},
			"template":{"metadata":{"labels":{"app":"j","job-name":"j","batch.kubernetes.io/job-name":"j","controller-uid":"u","batch.kubernetes.io/controller-uid":"u"}},"spec":{}}}}`,
		want: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","labels":{"app":"j"}},"spec":{"template":{"metadata":{"labels":{"app":"j"}},"spec":{}}}}`,
	}, {
		name: "a StatefulSet's claim templates lose their status",
		in: `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s"},"spec":{"volumeClaimTemplates":[
			{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data","creationTimestamp":null},"spec":{},"status":{"phase":"Pending"}}]}}`,
		want: `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s"},"spec":{"volumeClaimTemplates":[
			{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},"spec":{}}]}}`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := decode(t, tc.in)[0]
			clean(&transform.Context{}, obj)
			same(t, obj, tc.want)
		})
	}
}
