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

package options

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"stencil.dev/stencil/pkg/transform/plugin"
)

// pluginOptions are the server's two plugin options, as one for the tests.
type pluginOptions struct {
	starlark *StarlarkOptions
	exec     *ExecPluginOptions
}

func (o pluginOptions) Validate() []error { return append(o.starlark.Validate(), o.exec.Validate()...) }

func (o pluginOptions) Policy() (plugin.PolicyFunc, error) { return PluginPolicy(o.starlark, o.exec) }

func parsePluginFlags(t *testing.T, args ...string) pluginOptions {
	t.Helper()
	o := pluginOptions{NewStarlarkOptions(), NewExecPluginOptions()}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.starlark.AddFlags(fs)
	o.exec.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestPluginPolicyDefaultsRunNothing(t *testing.T) {
	o := parsePluginFlags(t)
	if errs := o.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	policy, err := o.Policy()
	if err != nil {
		t.Fatal(err)
	}
	if p := policy("default"); p.Starlark || p.Exec != nil || p.LocalFiles || len(p.Enabled()) != 0 {
		t.Fatalf("the defaults enable %v", p.Enabled())
	}
}

func TestPluginPolicyFromFlags(t *testing.T) {
	dir := t.TempDir()
	images := filepath.Join(dir, "images.yaml")
	if err := os.WriteFile(images, []byte("example/fn:v1: fn/annotate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := parsePluginFlags(t, "--starlark-namespaces=a,b", "--plugin-dir="+dir, "--plugin-images="+images, "--plugin-env=TOKEN=x", "--plugin-timeout=3s")
	if errs := o.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	policy, err := o.Policy()
	if err != nil {
		t.Fatal(err)
	}
	if a, c := policy("a"), policy("c"); !a.Starlark || c.Starlark {
		t.Fatalf("starlark in a: %t, in c: %t", a.Starlark, c.Starlark)
	}
	e := policy("c").Exec
	if e == nil || e.Dir != dir || e.Images["example/fn:v1"] != "fn/annotate" || e.Env[0] != "TOKEN=x" || e.Timeout.String() != "3s" {
		t.Fatalf("exec policy %+v", e)
	}
	if got := strings.Join(policy("c").Enabled(), ","); got != "exec,execPlugin,container" {
		t.Fatalf("enabled %s", got)
	}
}

func TestPluginFlagsRefused(t *testing.T) {
	o := parsePluginFlags(t, "--plugin-dir=/nonexistent", "--plugin-env=NOVALUE", "--plugin-timeout=0s")
	var msgs []string
	for _, e := range o.Validate() {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{`--plugin-dir "/nonexistent" is not a directory`, `--plugin-env "NOVALUE" is not NAME=VALUE`, "--plugin-timeout must be positive"} {
		if !strings.Contains(all, want) {
			t.Errorf("%q not in:\n%s", want, all)
		}
	}
	o = parsePluginFlags(t, "--plugin-images=x.yaml")
	if errs := o.Validate(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "--plugin-images needs --plugin-dir") {
		t.Fatalf("%v", errs)
	}
}
