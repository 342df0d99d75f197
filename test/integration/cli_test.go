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

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/process"
)

// stencil runs the CLI against the shared server, as a user with its kubeconfig would.
func stencil(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(cliBinary, append([]string{"--kubeconfig", filepath.Join(shared.Dir, "kubeconfig"), "-n", "cli"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func TestCLIAgainstTheServer(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "artifacts", "examples", "redis.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tpl, _, err := process.DecodeTemplate(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shared.client(t).TemplatesV1alpha1().Templates("cli").Create(context.Background(), asStencilTemplate(t, tpl, "redis"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, err := stencil(t, "process", "redis", "-p", "NAME=cache", "-o", "json")
	if err != nil {
		t.Fatalf("process NAME: %v %s", err, stderr)
	}
	var list struct {
		APIVersion, Kind string
		Items            []map[string]any
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || list.Kind != "List" || len(list.Items) != 3 {
		t.Fatalf("process NAME printed %v: %s", err, stdout)
	}
	if name := dig(list.Items[0], "metadata", "name"); name != "cache" {
		t.Fatalf("-p did not reach the server: %v", name)
	}

	stdout, stderr, err = stencil(t, "process", "-f", filepath.Join("..", "..", "pkg", "process", "testdata", "mysql-persistent.json"), "-p", "MYSQL_USER=u", "-l", "team=a")
	if err != nil {
		t.Fatalf("process -f: %v %s", err, stderr)
	}
	if !strings.Contains(stdout, "kind: List") || strings.Count(stdout, "team: a") != 4 {
		t.Fatalf("process -f printed:\n%s", stdout)
	}

	stdout, stderr, err = stencil(t, "parameters", "redis")
	if err != nil || !strings.Contains(stdout, "REDIS_PASSWORD") || !strings.Contains(stdout, "expression") {
		t.Fatalf("parameters: %v %s\n%s", err, stderr, stdout)
	}
	if _, stderr, err = stencil(t, "process", "absent"); err == nil || !strings.Contains(stderr, "not found") {
		t.Fatalf("a missing template: %v %s", err, stderr)
	}
	if _, stderr, err = stencil(t, "process", "redis", "-p", "REPLICAS=many"); err == nil || !strings.Contains(stderr, "parameters[2]") {
		t.Fatalf("a bad value: %v %s", err, stderr)
	}
}

// TestCLIPlacesTheServersRefusal: stencil process -f against a server places each cause of
// the server's 422 at its field in the file, FILE:LINE:COL: message, all at once.
func TestCLIPlacesTheServersRefusal(t *testing.T) {
	file := filepath.Join(t.TempDir(), "broken.yaml")
	broken := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: broken\nparameters:\n" +
		"- name: NUM\n  type: int\n  value: x\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n" +
		"  data:\n    b: ${MISSING}\n- kind: Secret\n"
	if err := os.WriteFile(file, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := stencil(t, "process", "-f", file)
	want := []string{
		file + `:8:3: error: parameters[0].value: Invalid value: "x": must be an integer`,
		file + `:14:5: error: objects[0].data.b: Invalid value: "${MISSING}": MISSING is not a declared parameter`,
		file + `:15:3: error: objects[1].apiVersion: Required value`,
	}
	if err == nil || !strings.Contains(stderr, strings.Join(want, "\n")+"\n") {
		t.Errorf("%v, stderr:\n%s\nwant the lines:\n%s", err, stderr, strings.Join(want, "\n"))
	}
}
