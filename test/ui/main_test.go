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

// Package ui tests `stencil ui` as users run it: the real CLI serving the catalog in front of
// a real local-mode stencil-apiserver holding OpenShift's templates, driven by a real headless
// Chromium. Screenshots of every step land in _output/ui-screenshots for review.
package ui

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/test/browser"
	"stencil.dev/stencil/test/localserver"
)

// catalogURL is the address `stencil ui` printed, token included; namespace is where the
// templates are stored and the kubeconfig's current namespace.
var (
	catalogURL string
	kubeconfig string
	client     clientset.Interface
)

const namespace = "default"

// screenshotDir is where each step's screenshot is written, from the repository's root.
var screenshotDir = filepath.Join("..", "..", "_output", "ui-screenshots")

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if err := browser.EnsureChromium(filepath.Join("..", "..")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "stencil-ui-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	stop, err := setUp(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		for _, name := range []string{"server.log", "catalog.log"} {
			if log, readErr := os.ReadFile(filepath.Join(dir, name)); readErr == nil {
				fmt.Fprintf(os.Stderr, "%s:\n%s\n", name, log)
			}
		}
		if stop != nil {
			stop()
		}
		return 1
	}
	code := m.Run()
	stop()
	return code
}

// setUp builds both binaries, starts the server, stores the templates and starts the catalog.
func setUp(dir string) (func(), error) {
	binaries, err := localserver.Build(dir, "stencil.dev/stencil/cmd/stencil-apiserver", "stencil.dev/stencil/cmd/stencil")
	if err != nil {
		return nil, err
	}
	apiserver, err := localserver.New(binaries[0], dir)
	if err != nil {
		return nil, err
	}
	var catalog *exec.Cmd
	stop := func() {
		if catalog != nil && catalog.Process != nil {
			_ = catalog.Process.Signal(syscall.SIGINT)
			done := make(chan struct{})
			go func() { _ = catalog.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = catalog.Process.Kill()
			}
		}
		if err := apiserver.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	if err := apiserver.Start(); err != nil {
		return stop, err
	}
	kubeconfig = apiserver.Kubeconfig()
	if client, err = clientset.NewForConfig(apiserver.Config); err != nil {
		return stop, err
	}
	if err := storeTemplates(client); err != nil {
		return stop, err
	}
	catalogLog, err := os.Create(filepath.Join(dir, "catalog.log"))
	if err != nil {
		return stop, err
	}
	catalog = exec.Command(binaries[1], "ui", "--kubeconfig", kubeconfig, "--catalog-namespace", "shared")
	stdout, err := catalog.StdoutPipe()
	if err != nil {
		return stop, err
	}
	catalog.Stderr = catalogLog
	if err := catalog.Start(); err != nil {
		return stop, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return stop, fmt.Errorf("stencil ui printed no URL: %v", err)
	}
	catalogURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/#token=[A-Za-z0-9_-]+`).FindString(line)
	if catalogURL == "" {
		return stop, fmt.Errorf("stencil ui printed no URL on its first line: %q", line)
	}
	return stop, nil
}

// sharedTemplates are the real OpenShift templates the catalog must show as they are.
var sharedTemplates = []string{"mysql-persistent.json", "django-psql-persistent.json"}

// storeTemplates stores the shared OpenShift templates in the current namespace, a typed
// template that uses every input kind, and a hidden one the catalog must not show.
func storeTemplates(cs clientset.Interface) error {
	ctx := context.Background()
	for _, name := range sharedTemplates {
		// The shared OpenShift templates, as the engine's tests keep them in the repository.
		if err := storeOpenShift(cs, filepath.Join("..", "..", "pkg", "process", "testdata", name), namespace, "", nil); err != nil {
			return err
		}
	}
	for _, tpl := range []*templatesv1.Template{typedTemplate(), hiddenTemplate()} {
		if _, err := cs.TemplatesV1alpha1().Templates(tpl.Namespace).Create(ctx, tpl, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("storing %s: %v", tpl.Name, err)
		}
	}
	return storeLabTemplates(cs)
}

// storeOpenShift stores the OpenShift template of a file in Stencil's group, in namespace, under
// name (its own when empty), with more annotations.
func storeOpenShift(cs clientset.Interface, file, namespace, name string, annotations map[string]string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	tpl, _, err := process.DecodeTemplate(data)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	tpl.OpenShift = false
	var versioned templatesv1.Template
	if err := templatesv1.Convert_templates_Template_To_v1alpha1_Template(tpl, &versioned, nil); err != nil {
		return err
	}
	if name == "" {
		name = tpl.Name
	}
	all := map[string]string{}
	for _, m := range []map[string]string{tpl.Annotations, annotations} {
		for k, v := range m {
			all[k] = v
		}
	}
	versioned.ObjectMeta = metav1.ObjectMeta{Name: name, Annotations: all}
	if _, err := cs.TemplatesV1alpha1().Templates(namespace).Create(context.Background(), &versioned, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("storing %s: %v", file, err)
	}
	return nil
}
