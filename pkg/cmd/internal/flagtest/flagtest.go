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

// Package flagtest holds a command's flags to a golden file, so that a change of a flag's
// name, type, default or help is a deliberate diff in review rather than a side effect of
// moving code. Only tests import it.
package flagtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Describe lists every flag of cmd and of its subcommands, each command's own flags under its
// path, sorted by name: its shorthand, type, default and help, and whether it is deprecated
// or hidden (which --help does not show, but scripts still pass).
func Describe(cmd *cobra.Command) string {
	var b strings.Builder
	describe(&b, cmd)
	return b.String()
}

func describe(b *strings.Builder, cmd *cobra.Command) {
	fmt.Fprintf(b, "## %s\n", cmd.CommandPath())
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		fmt.Fprintf(b, "--%s", f.Name)
		if f.Shorthand != "" {
			fmt.Fprintf(b, " -%s", f.Shorthand)
		}
		fmt.Fprintf(b, " %s default=%q", f.Value.Type(), f.DefValue)
		if f.NoOptDefVal != "" {
			fmt.Fprintf(b, " no-value=%q", f.NoOptDefVal)
		}
		if f.Hidden {
			b.WriteString(" hidden")
		}
		if f.Deprecated != "" {
			fmt.Fprintf(b, " deprecated=%q", f.Deprecated)
		}
		fmt.Fprintf(b, "\n    %s\n", strings.ReplaceAll(f.Usage, "\n", "\n    "))
	})
	for _, sub := range cmd.Commands() {
		describe(b, sub)
	}
}

// Golden compares got with the file at path, or writes got there when update is set.
func Golden(t *testing.T, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write it with go test -run %s -update)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Fatalf("the flags differ from %s (-want +got); if the change is meant, rewrite it with go test -run %s -update:\n%s", path, t.Name(), diff)
	}
}
