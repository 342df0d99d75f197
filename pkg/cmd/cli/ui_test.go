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

package cli

import (
	"strings"
	"testing"
)

func TestUIOptionsValidate(t *testing.T) {
	cases := []struct {
		options UIOptions
		wantErr string
	}{
		{UIOptions{Port: 0}, ""},
		{UIOptions{Port: 8080, CatalogNamespaces: []string{"openshift", "shared-templates"}}, ""},
		{UIOptions{Port: -1}, "--port must be between 0 and 65535"},
		{UIOptions{Port: 70000}, "--port must be between 0 and 65535"},
		{UIOptions{CatalogNamespaces: []string{"Shared"}}, `--catalog-namespace "Shared"`},
		{UIOptions{CatalogNamespaces: []string{"a/b"}}, `--catalog-namespace "a/b"`},
	}
	for _, c := range cases {
		err := c.options.Validate()
		if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("%+v: %v, want %q", c.options, err, c.wantErr)
		}
	}
}
