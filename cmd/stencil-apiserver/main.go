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

// Command stencil-apiserver serves the Stencil templates API.
package main

import (
	"os"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli"

	"stencil.dev/stencil/pkg/cmd/server"
	"stencil.dev/stencil/pkg/sandbox"
	"stencil.dev/stencil/pkg/transform/kustomize"
)

func main() {
	// First: a run of an exec plugin starts this binary again as its confined shim, and a
	// Kustomization's build as a build worker; neither must do anything of the server's.
	sandbox.RunShimIfRequested()
	kustomize.ServeWorkerIfRequested()
	ctx := genericapiserver.SetupSignalContext()
	options := server.NewStencilServerOptions(os.Stdout, os.Stderr)
	cmd := server.NewCommandStartStencilServer(ctx, options)
	os.Exit(cli.Run(cmd))
}
