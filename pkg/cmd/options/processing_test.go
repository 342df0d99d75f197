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
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"stencil.dev/stencil/pkg/render"
)

// TestProcessingLimitFlags: the limit flags parse into the options, the defaults are valid,
// and a non-positive value is refused rather than silently meaning the default.
func TestProcessingLimitFlags(t *testing.T) {
	o := NewProcessingOptions()
	if errs := o.Validate(); len(errs) > 0 {
		t.Fatalf("the defaults are refused: %v", errs)
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	args := []string{"--max-kustomize-objects=10", "--max-kustomize-bytes=2000", "--max-kustomize-applications=30", "--max-concurrent-kustomize-builds=3",
		"--max-expansion-output-bytes=4000", "--max-expansion-work=5000", "--max-transformer-imports=6", "--max-import-depth=7"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	l := o.Limits
	if l.KustomizeObjects != 10 || l.KustomizeBytes != 2000 || l.KustomizeApplications != 30 || l.KustomizeBuilds != 3 || l.ExpansionOutputBytes != 4000 ||
		l.ExpansionWork != 5000 || l.TransformerImports != 6 || l.ImportDepth != 7 {
		t.Fatalf("flags not parsed into the limits: %+v", l)
	}
	for _, flag := range []string{"max-kustomize-objects", "max-kustomize-bytes", "max-kustomize-applications", "max-concurrent-kustomize-builds",
		"max-expansion-output-bytes", "max-expansion-work", "max-transformer-imports", "max-import-depth"} {
		o := NewProcessingOptions()
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse([]string{"--" + flag + "=0"}); err != nil {
			t.Fatal(err)
		}
		errs := o.Validate()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "--"+flag) {
			t.Fatalf("--%s=0: want one error naming it, got %v", flag, errs)
		}
	}
}

// TestStarlarkLimitsHaveOneHolder: the Starlark limits are StarlarkOptions' alone, so the
// options' ApplyTo give the same configuration in either order, the Starlark flags included
// (ProcessingOptions' ApplyTo once overwrote them with the defaults when it came second).
func TestStarlarkLimitsHaveOneHolder(t *testing.T) {
	processing, starlark := NewProcessingOptions(), NewStarlarkOptions()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	processing.AddFlags(fs)
	starlark.AddFlags(fs)
	if err := fs.Parse([]string{"--starlark-max-steps=123", "--starlark-timeout=3s", "--starlark-max-memory-bytes=4567", "--max-import-depth=5"}); err != nil {
		t.Fatal(err)
	}
	var first, second render.Config
	processing.ApplyTo(&first)
	starlark.ApplyTo(&first)
	starlark.ApplyTo(&second)
	processing.ApplyTo(&second)
	if first != second {
		t.Fatalf("the order of ApplyTo matters:\n%+v\n%+v", first, second)
	}
	if l := first.Limits; l.StarlarkSteps != 123 || l.StarlarkTimeout != 3*time.Second || l.StarlarkMemoryBytes != 4567 || l.ImportDepth != 5 {
		t.Errorf("applied %+v", l)
	}
}
