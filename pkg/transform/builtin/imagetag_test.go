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

package builtin

import (
	"stencil.dev/stencil/pkg/transform/transformtest"
	"testing"
)

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
	transformtest.RunCases(t, testKinds, []transformtest.Case{{
		Name:   "new tag",
		Config: "{apiVersion: builtin, kind: ImageTagTransformer, imageTag: {name: nginx, newTag: '1.25'}}",
		In:     pod("nginx", "nginx:1.0", "nginx@sha256:abc", "nginxx:1", "my/nginx:1"),
		Want:   pod("nginx:1.25", "nginx:1.25", "nginx:1.25", "nginxx:1", "my/nginx:1"),
	}, {
		Name:   "new name keeps tag",
		Config: "{kind: ImageTagTransformer, imageTag: {name: registry:5000/app, newName: mirror.example.com/app}}",
		In:     pod("registry:5000/app:v2", "registry:5000/app"),
		Want:   pod("mirror.example.com/app:v2", "mirror.example.com/app"),
	}, {
		Name:   "digest drops tag, tag and digest",
		Config: "{kind: ImageTagTransformer, imageTag: {name: app, digest: 'sha256:123'}}",
		In:     pod("app:v1"),
		Want:   pod("app@sha256:123"),
	}, {
		Name:   "tag and digest",
		Config: "{kind: ImageTagTransformer, imageTag: {name: app, newTag: v2, digest: 'sha256:123'}}",
		In:     pod("app:v1"),
		Want:   pod("app:v2@sha256:123"),
	}, {
		Name:   "tag suffix applies once",
		Config: "{kind: ImageTagTransformer, imageTag: {name: app, tagSuffix: -debug}}",
		In:     "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {template: {spec: {containers: [{name: c, image: 'app:v1'}]}}}}",
		Want:   "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {template: {spec: {containers: [{name: c, image: 'app:v1-debug'}]}}}}",
	}, {
		Name:   "containers at any depth, image volumes",
		Config: "{kind: ImageTagTransformer, imageTag: {name: app, newTag: v9}}",
		In: `
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
		Want: `
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
		Name:    "name required",
		Config:  "{kind: ImageTagTransformer, imageTag: {newTag: v1}}",
		WantErr: "transformers[0].imageTag.name",
	}, {
		Name:    "name without tag",
		Config:  "{kind: ImageTagTransformer, imageTag: {name: 'app:v1', newTag: v2}}",
		WantErr: "transformers[0].imageTag.name",
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
