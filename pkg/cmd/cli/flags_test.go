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
	"bytes"
	"flag"
	"testing"

	"stencil.dev/stencil/pkg/cmd/internal/flagtest"
)

var update = flag.Bool("update", false, "rewrite testdata/flags.golden")

// TestFlagsGolden holds every flag of every stencil command, its name, type, default and
// help, to testdata/flags.golden: moving options between structs must not change them, and a
// change that is meant shows in review as a diff of that file.
func TestFlagsGolden(t *testing.T) {
	// kubectl's --cache-dir defaults to a directory under $HOME.
	t.Setenv("HOME", "/home/user")
	var out bytes.Buffer
	cmd := NewStencilCommand(IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out})
	flagtest.Golden(t, "testdata/flags.golden", flagtest.Describe(cmd), *update)
}
