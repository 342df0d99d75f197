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

package template

import (
	"context"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestRevisionNumbers: the server numbers the changes of a Template's content and hashes the
// content; a change of the metadata alone, or a forged revision, changes neither.
func TestRevisionNumbers(t *testing.T) {
	s := newTestStrategy()
	ctx := context.Background()
	v1 := newTemplate()
	v1.Revision = &templates.RevisionStamp{Number: 99, Hash: "sha256:forged"}
	s.PrepareForCreate(ctx, v1)
	if v1.Revision.Number != 1 || !strings.HasPrefix(v1.Revision.Hash, "sha256:") || len(v1.Revision.Hash) != len("sha256:")+64 {
		t.Fatalf("create: revision %+v, want 1 with a SHA-256", v1.Revision)
	}

	relabelled := v1.DeepCopy()
	relabelled.Labels = map[string]string{"tier": "back"}
	relabelled.Revision = &templates.RevisionStamp{Number: 7, Hash: "sha256:forged"}
	s.PrepareForUpdate(ctx, relabelled, v1)
	if *relabelled.Revision != *v1.Revision {
		t.Errorf("a change of labels: revision %+v, want %+v", relabelled.Revision, v1.Revision)
	}

	v2 := relabelled.DeepCopy()
	v2.Message = "changed"
	s.PrepareForUpdate(ctx, v2, relabelled)
	if v2.Revision.Number != 2 || v2.Revision.Hash == v1.Revision.Hash {
		t.Errorf("a change of the message: revision %+v after %+v, want 2 with another hash", v2.Revision, v1.Revision)
	}

	back := v2.DeepCopy()
	back.Message = v1.Message
	s.PrepareForUpdate(ctx, back, v2)
	if back.Revision.Number != 3 || back.Revision.Hash != v1.Revision.Hash {
		t.Errorf("the content of revision 1 again: revision %+v, want 3 with revision 1's hash %s", back.Revision, v1.Revision.Hash)
	}

	legacy := newTemplate()
	relabelledLegacy := legacy.DeepCopy()
	relabelledLegacy.Labels = nil
	s.PrepareForUpdate(ctx, relabelledLegacy, legacy)
	if relabelledLegacy.Revision == nil || relabelledLegacy.Revision.Number != 1 {
		t.Errorf("a Template stored before revisions, updated: revision %+v, want 1", relabelledLegacy.Revision)
	}
}
