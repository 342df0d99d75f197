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

// Command patch-meta writes pkg/transform/builtin's table of the k8s.io/api types' patch
// metadata (see pkg/transform/builtin/patchmetagen); hack/update-codegen.sh runs it.
package main

import (
	"flag"
	"fmt"
	"os"

	"stencil.dev/stencil/pkg/transform/builtin/patchmetagen"
)

func main() {
	boilerplate := flag.String("boilerplate", "hack/boilerplate.go.txt", "the license header of generated files")
	out := flag.String("o", "pkg/transform/builtin/zz_generated.patchmeta.go", "the file to write")
	flag.Parse()
	head, err := os.ReadFile(*boilerplate)
	if err == nil {
		var table []byte
		if table, err = patchmetagen.Generate(head); err == nil {
			err = os.WriteFile(*out, table, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
