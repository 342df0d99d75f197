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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin/exec"
)

// allOptions are the processing, Starlark and exec plugin options on one flag set, as the
// server has them.
type allOptions struct {
	processing *ProcessingOptions
	starlark   *StarlarkOptions
	exec       *ExecPluginOptions
	fs         *pflag.FlagSet
}

func newAllOptions() allOptions {
	o := allOptions{NewProcessingOptions(), NewStarlarkOptions(), NewExecPluginOptions(), pflag.NewFlagSet("test", pflag.ContinueOnError)}
	o.processing.AddFlags(o.fs)
	o.starlark.AddFlags(o.fs)
	o.exec.AddFlags(o.fs)
	return o
}

func (o allOptions) validate() []error {
	return append(append(o.processing.Validate(), o.starlark.Validate()...), o.exec.Validate()...)
}

// limitFlags are every number and duration flag of the three: the limits. Deprecated flags are
// left out (one does nothing, the other is an alias), and so is --processing-memory-bytes, whose
// zero means "derived" (TestProcessingMemoryFlagRange).
func limitFlags(fs *pflag.FlagSet) []*pflag.Flag {
	var flags []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		switch f.Value.Type() {
		case "int", "int64", "duration":
			if f.Deprecated == "" && f.Name != "processing-memory-bytes" {
				flags = append(flags, f)
			}
		}
	})
	return flags
}

// TestEveryLimitRejectsHostileValues is the operator's typo and the attempt to switch a bound
// off: every limit flag, found by walking the flag set so that a limit added later is covered
// without editing this test, refuses a negative value, zero and a value past a thousand times
// its default, each with one error that names the flag, and takes the most it may be.
func TestEveryLimitRejectsHostileValues(t *testing.T) {
	flags := limitFlags(newAllOptions().fs)
	if len(flags) < 20 {
		t.Fatalf("only %d limit flags found: the walk misses some", len(flags))
	}
	for _, f := range flags {
		def, isDuration := defaultOf(t, f)
		format := func(v int64) string {
			if isDuration {
				return time.Duration(v).String()
			}
			return strconv.FormatInt(v, 10)
		}
		most := def * absurdFactor
		for _, tc := range []struct {
			value string
			want  string // "" when the value is valid
		}{
			{format(-1), "--" + f.Name + " must be"},
			{format(0), "--" + f.Name + " must be"},
			{format(most + 1), "--" + f.Name + " must be at most " + format(most)},
			{format(1 << 62), "--" + f.Name + " must be at most"},
			{format(most), ""},
		} {
			o := newAllOptions()
			if err := o.fs.Parse([]string{"--" + f.Name + "=" + tc.value}); err != nil {
				t.Fatalf("--%s=%s: %v", f.Name, tc.value, err)
			}
			errs := o.validate()
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("--%s=%s, the most it may be, is refused: %v", f.Name, tc.value, errs)
			case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want)):
				t.Errorf("--%s=%s: want one error saying %q, got %v", f.Name, tc.value, tc.want, errs)
			}
		}
	}
}

// defaultOf is f's default as a number, and whether it is a duration.
func defaultOf(t *testing.T, f *pflag.Flag) (int64, bool) {
	t.Helper()
	if f.Value.Type() == "duration" {
		d, err := time.ParseDuration(f.DefValue)
		if err != nil {
			t.Fatal(err)
		}
		return int64(d), true
	}
	n, err := strconv.ParseInt(f.DefValue, 10, 64)
	if err != nil || n <= 0 {
		t.Fatalf("--%s's default %q is not a positive number", f.Name, f.DefValue)
	}
	return n, false
}

// TestProcessingMemoryFlagRange: zero derives the budget from the memory limit; otherwise it
// is at least what one request needs and at most a tebibyte.
func TestProcessingMemoryFlagRange(t *testing.T) {
	for value, valid := range map[string]bool{"0": true, "-1": false, "1": false, "67108864": true, "1099511627776": true, "1099511627777": false} {
		o := newAllOptions()
		if err := o.fs.Parse([]string{"--processing-memory-bytes=" + value}); err != nil {
			t.Fatal(err)
		}
		errs := o.validate()
		if valid != (len(errs) == 0) || (!valid && !strings.Contains(errs[0].Error(), "--processing-memory-bytes")) {
			t.Errorf("--processing-memory-bytes=%s: valid %t, got %v", value, valid, errs)
		}
	}
}

// TestDefaultsAreValid: the defaults pass, and the options start where the library does when
// given nothing: what ApplyTo writes from the defaults is render.Config{}.WithDefaults() (but
// for the build slots, which the options size and the library shares), and the exec bounds are
// exec.Limits{}.WithDefaults(). So the server, the CLI's --local and a zero Config agree.
func TestDefaultsAreValid(t *testing.T) {
	o := newAllOptions()
	if errs := o.validate(); len(errs) > 0 {
		t.Fatalf("the defaults are refused: %v", errs)
	}
	var got render.Config
	o.processing.ApplyTo(&got)
	o.starlark.ApplyTo(&got)
	want := render.Config{}.WithDefaults()
	want.Limits.KustomizeBuilds = transform.DefaultKustomizeBuilds()
	if got != want {
		t.Errorf("the options apply %+v, the library's defaults are %+v", got, want)
	}
	if want := (exec.Limits{}).WithDefaults(); o.exec.Limits != want {
		t.Errorf("the exec options start at %+v, the library's defaults are %+v", o.exec.Limits, want)
	}
}
