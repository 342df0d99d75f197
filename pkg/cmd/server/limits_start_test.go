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

package server

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestServerRefusesHostileLimits runs stencil-apiserver's command as main does, with limits
// an operator's typo or a wish to switch the bounds off would give: it stops in Validate with
// an error naming each flag, before it listens or reads storage. (In a cluster the command
// also misses --etcd-servers here; that error comes with the others and is not what is tested.)
func TestServerRefusesHostileLimits(t *testing.T) {
	cmd := NewCommandStartStencilServer(context.Background(), NewStencilServerOptions(io.Discard, io.Discard))
	cmd.SetArgs([]string{"--max-kustomize-objects=-1", "--max-output-bytes=0", "--starlark-timeout=100000h",
		"--plugin-max-processes=1000000", "--max-import-depth=9223372036854775807"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	if err == nil {
		t.Fatal("the server started with hostile limits")
	}
	t.Logf("refused: %v", err)
	for _, want := range []string{"--max-kustomize-objects must be positive, got -1", "--max-output-bytes must be at least 1048576, got 0",
		"--starlark-timeout must be at most 1h23m20s", "--plugin-max-processes must be at most 1000", "--max-import-depth must be at most 16000"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q:\n%v", want, err)
		}
	}
}
