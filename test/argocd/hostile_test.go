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

package argocd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"sigs.k8s.io/yaml"
)

// echoTemplate renders its parameter VALUE into a ConfigMap.
const echoTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: echo}
parameters:
- {name: VALUE, value: default}
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: echo}
  data: {value: "${VALUE}"}
`

func echoValue(t *testing.T, res response) string {
	t.Helper()
	objs := objects(t, res)
	if len(objs) != 1 {
		t.Fatalf("%d objects", len(objs))
	}
	return objs[0]["data"].(map[string]any)["value"].(string)
}

// TestHostileParameterValues gives the Application's parameters what a shell would run or a
// line-based reader would split: they reach the object as they are, and nothing runs.
func TestHostileParameterValues(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	repo, sha := newRepo(t, map[string]string{
		"echo/template.yaml":       echoTemplate,
		"echo/stencil-render.yaml": renderFile("echo", "template.yaml", nil, ""),
	})
	a := app{name: "echo", repo: repo, revision: sha, path: "echo"}
	for _, value := range []string{
		"$(touch " + marker + ")",
		"`touch " + marker + "`; touch " + marker + " && echo ${VALUE} $VALUE $$",
		"line one\nline two\r\n\tthird: \"quoted\" 'single' # not a comment\n---\nkind: Secret",
		"\\u0000 \\n %s %v {{.}} ${{VALUE}} $((1+1)) <>&|;*?[]~!",
		"ünïcødé ✓ \u202e",
	} {
		a.plugin = &pluginSource{Parameters: []appParameter{{Name: "VALUE", String: str(value)}}}
		if got := echoValue(t, a.generate()); got != value {
			t.Errorf("value %q reached the object as %q", value, got)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a parameter value was run as a command")
	}
}

// TestLargeValues checks values of 1 MiB: from the repository (a values file), rendered as
// they are; from the Application's parameters, which Argo CD puts in the command's
// environment, the kernel refuses a variable over 128 KiB (execve's MAX_ARG_STRLEN): the
// render fails with that error, and gives no manifests to prune by. A value under that bound
// goes through.
func TestLargeValues(t *testing.T) {
	mib := strings.Repeat("0123456789abcdef", 1<<16)
	values, _ := yaml.Marshal(map[string]string{"VALUE": mib})
	repo, sha := newRepo(t, map[string]string{
		"large/template.yaml":       echoTemplate,
		"large/values.yaml":         string(values),
		"large/stencil-render.yaml": renderFile("large", "template.yaml", nil, "  valuesFiles: [values.yaml]\n"),
	})
	a := app{name: "large", repo: repo, revision: sha, path: "large"}
	if got := echoValue(t, a.generate()); got != mib {
		t.Errorf("a 1 MiB value of a values file came back as %d bytes", len(got))
	}
	a.plugin = &pluginSource{Parameters: []appParameter{{Name: "VALUE", String: str(mib)}}}
	failing(t, a, `argument list too long`)
	kib := mib[:100<<10]
	a.plugin = &pluginSource{Parameters: []appParameter{{Name: "VALUE", String: str(kib)}}}
	if got := echoValue(t, a.generate()); got != kib {
		t.Errorf("a 100 KiB parameter came back as %d bytes", len(got))
	}
}

// TestHundredThousandObjects renders a template that repeats an object 100,000 times: refused
// with a placed error (a render may give at most 10,000), within the sidecar's memory limit.
func TestHundredThousandObjects(t *testing.T) {
	ids := make([]int, 100000)
	for i := range ids {
		ids[i] = i
	}
	idsJSON, _ := json.Marshal(ids)
	template := `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: many}
parameters:
- {name: IDS, type: json, items: {type: int}}
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm-${INDEX}
    annotations:
      templates.stencil.dev/for-each: params.IDS
  data: {id: "${ITEM}"}
`
	files := map[string]string{
		"many/template.yaml":       template,
		"many/ids.yaml":            "IDS: " + string(idsJSON) + "\n",
		"many/stencil-render.yaml": renderFile("many", "template.yaml", nil, "  valuesFiles: [ids.yaml]\n"),
	}
	repo, sha := newRepo(t, files)
	failing(t, app{name: "many", repo: repo, revision: sha, path: "many"},
		`stencil-render.yaml:\d+:\d+: error: spec: .*rendered 100000 objects, more than the 10000`)

	// The same render, run as the sidecar runs it, measured: its peak memory stays under the
	// limit the shipped sidecar has.
	limit := sidecarMemoryLimit(t)
	cmd := exec.Command(filepath.Join(env.bin, "stencil"), "argocd", "generate")
	cmd.Dir = filepath.Join(repo.dir, "many")
	cmd.Env = env.environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("stencil argocd generate rendered 100,000 objects")
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if peak >= limit {
		t.Errorf("the render of 100,000 objects peaked at %d MiB, over the sidecar's limit of %d MiB", peak>>20, limit>>20)
	}
	t.Logf("100,000 objects refused at a peak of %d MiB (the sidecar's limit: %d MiB): %s", peak>>20, limit>>20, strings.TrimSpace(stderr.String()))
}

// sidecarMemoryLimit reads the memory limit of the stencil container of the shipped patch.
func sidecarMemoryLimit(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "artifacts", "argocd", "repo-server-sidecar.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var patch struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name      string `json:"name"`
						Resources struct {
							Limits map[string]string `json:"limits"`
						} `json:"resources"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &patch); err != nil {
		t.Fatal(err)
	}
	for _, c := range patch.Spec.Template.Spec.Containers {
		if c.Name == "stencil" {
			mi, err := strconv.ParseInt(strings.TrimSuffix(c.Resources.Limits["memory"], "Mi"), 10, 64)
			if err != nil {
				t.Fatalf("memory limit %q: %v", c.Resources.Limits["memory"], err)
			}
			return mi << 20
		}
	}
	t.Fatal("no stencil container in the sidecar patch")
	return 0
}

// TestTenThousandFiles discovers and renders an application of a repository of 10,000
// files, 2,000 of them in the application's own directory and none of them valid YAML: Argo
// CD's discovery (no plugin named) finds the render file by its name alone, and the render
// reads only the files the render file names.
func TestTenThousandFiles(t *testing.T) {
	files := map[string]string{
		"app/template.yaml":       echoTemplate,
		"app/stencil-render.yaml": renderFile("big", "template.yaml", map[string]string{"VALUE": "found"}, ""),
	}
	for i := 0; i < 10000; i++ {
		dir := "other/" + strconv.Itoa(i%100)
		if i < 2000 {
			dir = "app/junk"
			if i < 1000 {
				dir = "app"
			}
		}
		files[fmt.Sprintf("%s/file-%05d.yaml", dir, i)] = fmt.Sprintf("{not: yaml: [%d\n", i)
	}
	repo, sha := newRepo(t, files)
	a := app{name: "big", repo: repo, revision: sha, path: "app"}
	a.plugin = &pluginSource{} // no name: Argo CD discovers the plugin
	if got := echoValue(t, a.generate()); got != "found" {
		t.Errorf("value %q", got)
	}
}
