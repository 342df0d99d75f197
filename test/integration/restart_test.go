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
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRestartKeepsTemplates stops a server with SIGINT, as Ctrl-C does, starts a new one on the
// same data directory and finds the template there.
func TestRestartKeepsTemplates(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()

	first := startTestServer(t, dir)
	created, err := first.client(t).TemplatesV1alpha1().Templates("default").Create(ctx, newTemplate("durable", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Stop(); err != nil {
		t.Fatalf("a clean stop on SIGINT exits 0: %v", err)
	}

	second := startTestServer(t, dir)
	got, err := second.client(t).TemplatesV1alpha1().Templates("default").Get(ctx, "durable", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("template lost across restart: %v", err)
	}
	if got.UID != created.UID || got.Message != created.Message {
		t.Fatalf("template changed across restart: %+v", got)
	}
}
