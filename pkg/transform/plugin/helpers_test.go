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

package plugin

import (
	"testing"
	"time"

	"stencil.dev/stencil/pkg/transform/builtin"
	"stencil.dev/stencil/pkg/transform/generator"
	"stencil.dev/stencil/pkg/transform/kustomize"
	"stencil.dev/stencil/pkg/transform/plugin/exec"
	"stencil.dev/stencil/pkg/transform/plugin/exec/exectest"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// testKinds is every kind, as pkg/render registers them.
var testKinds = transformtest.Kinds(builtin.Register, generator.Register, kustomize.Register)

// execPolicy is the policy of the test plugins.
func execPolicy(t testing.TB) *exec.Policy {
	return &exec.Policy{Dir: exectest.Build(t), Images: map[string]string{"registry.example.com/annotate:v1": "annotate"},
		Env: []string{"TOKEN=s3cr3t-token", "HOME=/nonexistent"}, Limits: exec.Limits{Timeout: 3 * time.Second}}
}
