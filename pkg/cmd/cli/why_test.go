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
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/provenance"
)

// TestWhy: stencil why answers one line per step, each with its place in the file, and
// process --local --provenance writes the map the same answers come from.
func TestWhy(t *testing.T) {
	example := "../../../artifacts/examples/app.yaml"
	stdout, stderr, code := run(t, "", "why", "-f", example, "Deployment/my-app", "spec.template.spec.containers[0].image", "-p", "IMAGE_TAG=1.28")
	if code != 0 {
		t.Fatalf("why: %d %s", code, stderr)
	}
	want := example + ":74:11: written by the template at objects[2].spec.template.spec.containers[0].image\n" +
		example + `:37:3: step 2, transformers[1] ImageTagTransformer "image-tag-transformer" changed it (parameters: IMAGE_TAG)` + "\n"
	if stdout != want {
		t.Errorf("why:\n%s\nwant\n%s", stdout, want)
	}
	if strings.Contains(stdout, "1.28") {
		t.Error("why printed a parameter's value")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"why", "-f", example, "Deployment/nope", "spec"}, "the output has no Deployment/nope"},
		{[]string{"why", "-f", example, "Deployment/my-app", "spec.replica"}, "has no field spec.replica"},
		{[]string{"why", "-f", example, "my-app"}, "KIND/NAME"},
		{[]string{"why", "Deployment/my-app"}, "give the template file with -f"},
	} {
		if _, stderr, code := run(t, "", c.args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: %d %q, want %q", c.args, code, stderr, c.want)
		}
	}

	file := filepath.Join(t.TempDir(), "provenance.json")
	_, stderr, code = run(t, "", "process", "--local", "-f", example, "--provenance", file, "--provenance-annotations")
	if code != 0 {
		t.Fatalf("process: %d %s", code, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m provenance.Map
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	matches, err := provenance.Find(&m, "Service/my-app", "metadata.annotations[config.kubernetes.io/origin]")
	if err != nil || len(matches) != 1 || matches[0].Field.Source.Kind != provenance.Step {
		t.Errorf("the origin annotation: %v %v", matches, err)
	}
	if _, stderr, code := run(t, "", "process", "-f", example, "--provenance-annotations"); code == 0 || !strings.Contains(stderr, "needs --local") {
		t.Errorf("--provenance-annotations without --local: %d %s", code, stderr)
	}
}
