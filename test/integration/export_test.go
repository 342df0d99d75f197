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

package integration

import (
	"os"
	"strings"
	"testing"
)

// TestLocalModeSaysWhatItServes: a local server's log says, as it starts, that it serves
// Stencil's API only and where what it renders goes, for the newcomer whose kubectl apply of a
// processed List finds no v1 List there.
func TestLocalModeSaysWhatItServes(t *testing.T) {
	log, err := os.ReadFile(shared.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Local mode serves Stencil's API only", "kubectl --kubeconfig ~/.kube/config apply -f -", "--target-kubeconfig"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the log does not say %q", want)
		}
	}
}

// TestExportFromLocalServer runs stencil export, as a newcomer does after make run, against a
// local-mode server, which serves none of the kinds export reads: it fails, says what the
// server is and where to read from instead, and prints no Template; a short name fails with
// kubectl's words, not a RESTMapper's.
func TestExportFromLocalServer(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"export", "-n", "prod", "--name", "shop"}, []string{
			"error: the server at https://127.0.0.1:", "serves none of the kinds stencil export reads (deployments.apps,",
			"it serves no core API (Services, ConfigMaps), as a Stencil server in local mode serves only Stencil's own groups",
			"give that cluster's kubeconfig"}},
		{[]string{"export", "deploy,svc", "-l", "app=shop", "--name", "shop", "--no-parameterize", "-o", "json"}, []string{
			`doesn't have a resource type "deploy": it serves no core API`}},
	} {
		stdout, stderr, err := stencil(t, tc.args...)
		if err == nil || stdout != "" {
			t.Errorf("stencil %v: exit %v, printed %q; want an error and nothing printed", tc.args, err, stdout)
		}
		for _, part := range tc.want {
			if !strings.Contains(stderr, part) {
				t.Errorf("stencil %v says %q, want %q in it", tc.args, stderr, part)
			}
		}
	}
}
