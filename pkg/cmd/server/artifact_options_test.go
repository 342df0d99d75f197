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

package server

import (
	"testing"

	"stencil.dev/stencil/pkg/apiserver"
)

func TestArtifactOptions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		set        func(*ArtifactOptions)
		errs       int
		address    string
		url        string
		publishing bool
	}{
		{"off by default", func(*ArtifactOptions) {}, 0, "", "", false},
		{"a port and a URL", func(o *ArtifactOptions) {
			o.Port, o.URL = 9090, "http://stencil-artifacts.stencil-system.svc.cluster.local."
		},
			0, "0.0.0.0:9090", "http://stencil-artifacts.stencil-system.svc.cluster.local.", true},
		{"a trailing slash", func(o *ArtifactOptions) { o.Port, o.BindAddress, o.URL = 9090, "::1", "https://a.example:8443/" },
			0, "[::1]:9090", "https://a.example:8443", true},
		{"a URL without a port", func(o *ArtifactOptions) { o.URL = "http://a" }, 1, "", "", false},
		{"a port without a URL", func(o *ArtifactOptions) { o.Port = 9090 }, 1, "", "", false},
		{"not a port, not an address", func(o *ArtifactOptions) { o.Port, o.BindAddress, o.URL = 70000, "any", "http://a" }, 2, "", "", false},
		{"a URL with a path", func(o *ArtifactOptions) { o.Port, o.URL = 9090, "http://a/artifacts" }, 1, "", "", false},
		{"a URL with a query", func(o *ArtifactOptions) { o.Port, o.URL = 9090, "http://a?x=1" }, 1, "", "", false},
		{"a URL with credentials", func(o *ArtifactOptions) { o.Port, o.URL = 9090, "http://u:p@a" }, 1, "", "", false},
		{"not HTTP", func(o *ArtifactOptions) { o.Port, o.URL = 9090, "file:///etc" }, 1, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewArtifactOptions()
			tc.set(o)
			errs := o.Validate()
			if len(errs) != tc.errs {
				t.Fatalf("errors %v, want %d", errs, tc.errs)
			}
			if tc.errs > 0 {
				return
			}
			var c apiserver.ExtraConfig
			o.ApplyTo(&c)
			if (c.Artifacts != nil) != tc.publishing {
				t.Fatalf("config %+v", c.Artifacts)
			}
			if c.Artifacts != nil && (c.Artifacts.Address != tc.address || c.Artifacts.URL != tc.url) {
				t.Errorf("config %+v, want %s %s", c.Artifacts, tc.address, tc.url)
			}
		})
	}
}
