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

package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// fluxRolloutTemplate is Template app, rolled out one instance a wave: a wave passes once Flux
// reports its instances' artifacts applied and someone approved them.
func fluxRolloutTemplate(value string) string {
	return `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app}
rollout: {waves: [1, 2], gate: "instances.all(i, i.ready && i.conditions.Applied.status == 'True' && 'approved' in i.annotations)", timeout: 90s}
parameters:
- {name: NAME, required: true}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}-config"}, data: {k: "` + value + `"}}
`
}

// TestFluxPublishedRollout: a rollout over three published instances moves the first wave,
// whose instance is Ready once Flux applied its new artifact, and pauses on the gate, which
// that instance fails; the later instances keep their artifacts and Flux keeps what it applied.
func TestFluxPublishedRollout(t *testing.T) {
	needFlux(t)
	const ns = "e2e-flux-rollout"
	fluxTenant(t, ns)
	user := fluxPublisher(t, ns, "roller")
	mustKubectl(t, user, fluxRolloutTemplate("one"), "apply", "-n", ns, "-f", "-")
	names := []string{"a-first", "b-second", "c-third"}
	for _, name := range names {
		mustKubectl(t, user, kustomizationYAML(ns, name, name), "apply", "-f", "-")
		mustKubectl(t, user, publishedInstanceYAML(name, "app", "NAME: "+name, ""), "apply", "-n", ns, "-f", "-")
	}
	revisions := map[string]string{}
	for _, name := range names {
		ti := waitInstance(t, ns, name, 2*time.Minute, "Ready on revision 1", func(ti *templatesv1.TemplateInstance) error {
			if err := publishedReady(ti); err != nil {
				return err
			}
			return onRevision(1)(ti)
		})
		revisions[name] = ti.Status.Artifact.Revision
		waitKustomization(t, ns, name, time.Minute, "revision 1 applied", appliedRevision(revisions[name]))
	}

	// The preview classifies published instances as it does applied ones.
	var preview templatesv1.TemplatePreview
	if err := json.Unmarshal([]byte(mustKubectl(t, user, fluxRolloutTemplate("two"), "stencil", "diff", "--template", "app", "-n", ns, "-f", "-", "-o", "json")), &preview); err != nil {
		t.Fatal(err)
	}
	if preview.Status.Counts["Changed"] != 3 {
		t.Errorf("preview of the change: %+v", preview.Status)
	}

	mustKubectl(t, user, fluxRolloutTemplate("two"), "apply", "-n", ns, "-f", "-")
	st := waitRollout(t, ns, "paused on the gate after the first wave", func(st *templatesv1.RolloutStatus) error {
		if st.Phase != templatesv1.RolloutPaused || st.Reason != "GateFailed" {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
	if !slices.Equal(st.Moved, []string{"a-first"}) || len(st.Failed) != 1 || st.Failed[0].Name != "a-first" {
		t.Errorf("moved %v, failed %+v", st.Moved, st.Failed)
	}
	// The first wave: revision 2 published and applied by Flux.
	ti := waitInstance(t, ns, "a-first", time.Minute, "Ready on revision 2", func(ti *templatesv1.TemplateInstance) error {
		if err := publishedReady(ti); err != nil {
			return err
		}
		return onRevision(2)(ti)
	})
	if !strings.HasPrefix(ti.Status.Artifact.Revision, "r2@sha256:") {
		t.Errorf("a-first publishes %s", ti.Status.Artifact.Revision)
	}
	waitKustomization(t, ns, "a-first", time.Minute, "revision 2 applied", appliedRevision(ti.Status.Artifact.Revision))
	if got := mustKubectl(t, "admin", "", "get", "configmap", "a-first-config", "-n", ns, "-o", "jsonpath={.data.k}"); got != "two" {
		t.Errorf("a-first-config holds %q", got)
	}
	// The later waves: untouched, in Stencil and in Flux.
	time.Sleep(3 * time.Second)
	for _, name := range names[1:] {
		waitInstance(t, ns, name, time.Second, "still on revision 1", onRevision(1))
		if got := mustKubectl(t, "admin", "", "get", "externalartifacts.source.toolkit.fluxcd.io", name, "-n", ns, "-o", "jsonpath={.status.artifact.revision}"); got != revisions[name] {
			t.Errorf("%s's ExternalArtifact names %s, was %s", name, got, revisions[name])
		}
		if k := getKustomization(t, ns, name); k.Status.LastAppliedRevision != revisions[name] {
			t.Errorf("Flux applied %s to %s", k.Status.LastAppliedRevision, name)
		}
		if got := mustKubectl(t, "admin", "", "get", "configmap", name+"-config", "-n", ns, "-o", "jsonpath={.data.k}"); got != "one" {
			t.Errorf("%s-config holds %q", name, got)
		}
	}
}
