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

package render

import (
	"sync"

	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/builtin"
	"stencil.dev/stencil/pkg/transform/generator"
	"stencil.dev/stencil/pkg/transform/kustomize"
)

// kinds is the registry of every transformer and generator kind Stencil runs: the built-in
// transformers, the built-in generators and the inline Kustomization. It is the one place
// that lists them, built the first time it is needed: the server, the CLI and stencil export
// all process templates through this package. Plugins are not kinds; a request's policy
// (Input.Plugins) says which of them run.
var kinds = sync.OnceValue(func() *transform.Registry {
	reg := transform.NewRegistry()
	builtin.Register(reg)
	generator.Register(reg)
	kustomize.Register(reg)
	return reg
})
