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

import "testing"

// pod wraps a pod spec into a Deployment, the object that defaults.go reads it from.
func pod(spec string) string {
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":` + spec + `}}}`
}

func TestRemoveDefaults(t *testing.T) {
	cases := []struct{ name, in, want string }{{
		name: "pod spec defaults",
		in: pod(`{"dnsPolicy":"ClusterFirst","restartPolicy":"Always","terminationGracePeriodSeconds":30,
			"schedulerName":"default-scheduler","securityContext":{},"serviceAccount":"app","serviceAccountName":"app"}`),
		want: pod(`{"serviceAccountName":"app"}`),
	}, {
		name: "pod spec values that are not the defaults stay",
		in: pod(`{"dnsPolicy":"None","restartPolicy":"OnFailure","terminationGracePeriodSeconds":5,
			"schedulerName":"mine","securityContext":{"runAsUser":1},"serviceAccount":"old","serviceAccountName":"app"}`),
		want: pod(`{"dnsPolicy":"None","restartPolicy":"OnFailure","terminationGracePeriodSeconds":5,
			"schedulerName":"mine","securityContext":{"runAsUser":1},"serviceAccount":"old","serviceAccountName":"app"}`),
	}, {
		name: "container defaults",
		in: pod(`{"containers":[{"name":"c","image":"nginx:1.27","imagePullPolicy":"IfNotPresent",
			"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","resources":{},
			"ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":53,"protocol":"UDP"}],
			"env":[{"name":"N","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],
			"livenessProbe":{"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
			"readinessProbe":{"tcpSocket":{"port":80},"timeoutSeconds":2,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}],
			"initContainers":[{"name":"i","image":"busybox","imagePullPolicy":"Always","terminationMessagePath":"/dev/termination-log"}]}`),
		want: pod(`{"containers":[{"name":"c","image":"nginx:1.27",
			"ports":[{"containerPort":80},{"containerPort":53,"protocol":"UDP"}],
			"env":[{"name":"N","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
			"livenessProbe":{"httpGet":{"path":"/","port":80}},
			"readinessProbe":{"tcpSocket":{"port":80},"timeoutSeconds":2}}],
			"initContainers":[{"name":"i","image":"busybox"}]}`),
	}, {
		name: "a pull policy other than the image's default stays",
		in:   pod(`{"containers":[{"name":"a","image":"nginx:1.27","imagePullPolicy":"Always"},{"name":"b","image":"nginx","imagePullPolicy":"IfNotPresent"}]}`),
		want: pod(`{"containers":[{"name":"a","image":"nginx:1.27","imagePullPolicy":"Always"},{"name":"b","image":"nginx","imagePullPolicy":"IfNotPresent"}]}`),
	}, {
		name: "volume defaults",
		in: pod(`{"volumes":[{"name":"a","configMap":{"name":"c","defaultMode":420}},{"name":"b","secret":{"secretName":"s","defaultMode":256}},
			{"name":"e","emptyDir":{}},{"name":"h","hostPath":{"path":"/x","type":""}},
			{"name":"d","downwardAPI":{"defaultMode":420,"items":[{"path":"n","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}]}}]}`),
		want: pod(`{"volumes":[{"name":"a","configMap":{"name":"c"}},{"name":"b","secret":{"secretName":"s","defaultMode":256}},
			{"name":"e","emptyDir":{}},{"name":"h","hostPath":{"path":"/x"}},
			{"name":"d","downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name"}}]}}]}`),
	}, {
		name: "Deployment defaults",
		in: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"revisionHistoryLimit":10,"progressDeadlineSeconds":600,
			"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}}}}`,
		want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{}}`,
	}, {
		name: "a Deployment strategy that is not the default stays, but for its default parts",
		in: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"revisionHistoryLimit":3,
			"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0,"maxSurge":"25%"}}}}`,
		want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"revisionHistoryLimit":3,
			"strategy":{"rollingUpdate":{"maxUnavailable":0}}}}`,
	}, {
		name: "a Recreate strategy stays",
		in:   `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"strategy":{"type":"Recreate"}}}`,
		want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"strategy":{"type":"Recreate"}}}`,
	}, {
		name: "StatefulSet defaults",
		in: `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s"},"spec":{"revisionHistoryLimit":10,"podManagementPolicy":"OrderedReady",
			"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}},
			"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"},
			"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"volumeMode":"Filesystem"}}]}}`,
		want: `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s"},"spec":{"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{}}]}}`,
	}, {
		name: "DaemonSet defaults",
		in: `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"s"},"spec":{"revisionHistoryLimit":10,
			"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}}}}`,
		want: `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"s"},"spec":{}}`,
	}, {
		name: "Job defaults",
		in: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"backoffLimit":6,"completions":1,"parallelism":1,
			"completionMode":"NonIndexed","podReplacementPolicy":"TerminatingOrFailed","template":{"spec":{"restartPolicy":"Never"}}}}`,
		want: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"restartPolicy":"Never"}}}}`,
	}, {
		name: "a Job's completions of 1 stays beside another parallelism, which the server would not default it with",
		in:   `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"completions":1,"parallelism":2}}`,
		want: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"completions":1,"parallelism":2}}`,
	}, {
		name: "CronJob defaults, and the pod defaults of its job template",
		in: `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},"spec":{"concurrencyPolicy":"Allow","suspend":false,
			"successfulJobsHistoryLimit":3,"failedJobsHistoryLimit":1,"jobTemplate":{"spec":{"template":{"spec":{"dnsPolicy":"ClusterFirst","restartPolicy":"OnFailure"}}}}}}`,
		want: `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},"spec":{"jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure"}}}}}}`,
	}, {
		name: "Service defaults",
		in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"type":"ClusterIP","ports":[
			{"port":80,"targetPort":80,"protocol":"TCP"},{"port":443,"targetPort":8443,"protocol":"TCP"},{"port":53,"targetPort":"dns","protocol":"UDP"}]}}`,
		want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[
			{"port":80},{"port":443,"targetPort":8443},{"port":53,"targetPort":"dns","protocol":"UDP"}]}}`,
	}, {
		name: "claim, Secret and NetworkPolicy defaults",
		in: `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"n"},"spec":{"policyTypes":["Ingress"],
			"ingress":[{"ports":[{"port":80,"protocol":"TCP"}]}]}}`,
		want: `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"n"},"spec":{"ingress":[{"ports":[{"port":80}]}]}}`,
	}, {
		name: "a NetworkPolicy with egress rules keeps Ingress alone",
		in:   `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"n"},"spec":{"policyTypes":["Ingress"],"egress":[{}]}}`,
		want: `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"n"},"spec":{"policyTypes":["Ingress"],"egress":[{}]}}`,
	}, {
		name: "an Opaque Secret and a Filesystem claim",
		in:   `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"p"},"spec":{"volumeMode":"Filesystem"}}`,
		want: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"p"},"spec":{}}`,
	}, {
		name: "Secret type",
		in:   `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"type":"Opaque"}`,
		want: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`,
	}, {
		name: "a kind of another group with the same name keeps its fields",
		in:   `{"apiVersion":"example.com/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"revisionHistoryLimit":10,"template":{"spec":{"dnsPolicy":"ClusterFirst"}}}}`,
		want: `{"apiVersion":"example.com/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"revisionHistoryLimit":10,"template":{"spec":{"dnsPolicy":"ClusterFirst"}}}}`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := decode(t, tc.in)[0]
			removeDefaults(obj)
			same(t, obj, tc.want)
		})
	}
}

func TestDefaultPullPolicy(t *testing.T) {
	for image, want := range map[string]string{
		"nginx":                              "Always",
		"nginx:latest":                       "Always",
		"nginx:1.27":                         "IfNotPresent",
		"registry:5000/nginx":                "Always",
		"registry:5000/nginx:1.27":           "IfNotPresent",
		"nginx@sha256:0123":                  "IfNotPresent",
		"nginx:latest@sha256:0123":           "Always",
		"registry:5000/team/nginx@sha256:01": "IfNotPresent",
	} {
		if got := defaultPullPolicy(image); got != want {
			t.Errorf("%s: %s, want %s", image, got, want)
		}
	}
}
