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

package clients

import (
	"strings"
	"testing"
)

// TestPythonDynamicClient runs testdata/dynamic_client.py with Debian's python3-kubernetes: it
// looks Template, TemplateInstance, CustomTransform and ProcessedTemplate up by kind, as
// Ansible's k8s module does, then gets, creates, patches, applies, lists, processes and deletes
// through them. On 3731d16 the lookup of Template raised ResourceNotUniqueError, because
// processedtemplates reported kind Template too.
func TestPythonDynamicClient(t *testing.T) {
	python := tool(t, "/usr/bin/python3")
	// The dynamic client caches discovery in the temporary directory by server address; a
	// cache of another server on the same port would answer for this one.
	out := run(t, []string{"TMPDIR=" + t.TempDir()}, python, "testdata/dynamic_client.py", server.Kubeconfig(), "default")
	if !strings.Contains(out, `{"done": true}`) {
		t.Fatalf("the script stopped early:\n%s", out)
	}
	t.Logf("%s", out)
}
