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

package transform

import "testing"

func TestImageTagTransformer(t *testing.T) {
	pod := func(images ...string) string {
		s := "{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: ["
		for i, img := range images {
			if i > 0 {
				s += ", "
			}
			s += "{name: c" + string(rune('0'+i)) + ", image: '" + img + "'}"
		}
		return s + "]}}"
	}
	runCases(t, []transformCase{{
		name:   "new tag",
		config: "{apiVersion: builtin, kind: ImageTagTransformer, imageTag: {name: nginx, newTag: '1.25'}}",
		in:     pod("nginx", "nginx:1.0", "nginx@sha256:abc", "nginxx:1", "my/nginx:1"),
		want:   pod("nginx:1.25", "nginx:1.25", "nginx:1.25", "nginxx:1", "my/nginx:1"),
	}, {
		name:   "new name keeps tag",
		config: "{kind: ImageTagTransformer, imageTag: {name: registry:5000/app, newName: mirror.example.com/app}}",
		in:     pod("registry:5000/app:v2", "registry:5000/app"),
		want:   pod("mirror.example.com/app:v2", "mirror.example.com/app"),
	}, {
		name:   "digest drops tag, tag and digest",
		config: "{kind: ImageTagTransformer, imageTag: {name: app, digest: 'sha256:123'}}",
		in:     pod("app:v1"),
		want:   pod("app@sha256:123"),
	}, {
		name:   "tag and digest",
		config: "{kind: ImageTagTransformer, imageTag: {name: app, newTag: v2, digest: 'sha256:123'}}",
		in:     pod("app:v1"),
		want:   pod("app:v2@sha256:123"),
	}, {
		name:   "tag suffix applies once",
		config: "{kind: ImageTagTransformer, imageTag: {name: app, tagSuffix: -debug}}",
		in:     "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {template: {spec: {containers: [{name: c, image: 'app:v1'}]}}}}",
		want:   "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {template: {spec: {containers: [{name: c, image: 'app:v1-debug'}]}}}}",
	}, {
		name:   "containers at any depth, image volumes",
		config: "{kind: ImageTagTransformer, imageTag: {name: app, newTag: v9}}",
		in: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          initContainers: [{name: i, image: app}]
          containers: [{name: c, image: 'app:v1'}]
          volumes: [{name: v, image: {reference: 'app:v1'}}]
`,
		want: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          initContainers: [{name: i, image: 'app:v9'}]
          containers: [{name: c, image: 'app:v9'}]
          volumes: [{name: v, image: {reference: 'app:v9'}}]
`,
	}, {
		name:    "name required",
		config:  "{kind: ImageTagTransformer, imageTag: {newTag: v1}}",
		wantErr: "transformers[0].imageTag.name",
	}, {
		name:    "name without tag",
		config:  "{kind: ImageTagTransformer, imageTag: {name: 'app:v1', newTag: v2}}",
		wantErr: "transformers[0].imageTag.name",
	}})
}

func TestSplitImage(t *testing.T) {
	for _, tc := range []struct{ in, name, tag, digest string }{
		{"nginx", "nginx", "", ""},
		{"nginx:1", "nginx", "1", ""},
		{"host:5000/nginx", "host:5000/nginx", "", ""},
		{"host:5000/nginx:1@sha256:x", "host:5000/nginx", "1", "sha256:x"},
		{"nginx@sha256:x", "nginx", "", "sha256:x"},
	} {
		n, tg, d := splitImage(tc.in)
		if n != tc.name || tg != tc.tag || d != tc.digest {
			t.Errorf("splitImage(%q) = %q %q %q", tc.in, n, tg, d)
		}
	}
}
