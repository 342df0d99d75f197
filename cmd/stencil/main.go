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

// Command stencil processes templates; see pkg/cmd/cli.
package main

import (
	"os"

	// First of all, so that its init runs before the libraries' registries allocate.
	_ "stencil.dev/stencil/cmd/stencil/internal/lazygc"
	"stencil.dev/stencil/pkg/cmd/cli"
	"stencil.dev/stencil/pkg/sandbox"
)

func main() {
	// First: a run of an exec plugin (stencil process --local --enable-exec) starts this
	// binary again as its confined shim, which must do nothing of the CLI's.
	sandbox.RunShimIfRequested()
	os.Exit(cli.Run(cli.StandardStreams(), os.Args[1:]))
}
