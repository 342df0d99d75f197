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

package publish

import (
	"context"
	"fmt"
	"sort"
	"strings"

	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// Applied is what Flux reports of a published artifact: a published instance is ready when
// every Kustomization of its namespace whose source is its ExternalArtifact reports the
// artifact's digest applied and Ready (with wait or healthChecks set, Ready includes the
// health of what it applied).
type Applied struct {
	// Kustomizations name those Kustomizations, sorted.
	Kustomizations []string
	// Done says each reports the digest applied and Ready, and there is at least one.
	Done bool
	// Reason and Message say why not, or which Kustomizations applied it.
	Reason, Message string
}

// The reasons of the Applied condition.
const (
	ReasonApplied      = "Applied"
	ReasonNoConsumer   = "NoKustomization"
	ReasonNotYet       = "NotApplied"
	ReasonApplyFailing = "KustomizationNotReady"
)

// AppliedBy reads, as the requester behind c, the Kustomizations of the instance's namespace
// that apply its ExternalArtifact, and what they report of digest.
func AppliedBy(ctx context.Context, c Client, ti *templatesv1.TemplateInstance, digest string) (*Applied, error) {
	list, err := c.List(ctx, Kustomizations, ti.Namespace)
	if err != nil {
		return nil, noFlux(err)
	}
	out := &Applied{}
	var waiting, failing []string
	for i := range list.Items {
		k := &list.Items[i]
		kind, _, _ := unstructured.NestedString(k.Object, "spec", "sourceRef", "kind")
		name, _, _ := unstructured.NestedString(k.Object, "spec", "sourceRef", "name")
		ns, _, _ := unstructured.NestedString(k.Object, "spec", "sourceRef", "namespace")
		if kind != ExternalArtifactKind || name != ti.Name || (ns != "" && ns != ti.Namespace) {
			continue
		}
		out.Kustomizations = append(out.Kustomizations, k.GetName())
		applied, _, _ := unstructured.NestedString(k.Object, "status", "lastAppliedRevision")
		observed, _, _ := unstructured.NestedInt64(k.Object, "status", "observedGeneration")
		ready := meta.FindStatusCondition(conditionsOf(k), fluxmeta.ReadyCondition)
		switch {
		case !strings.HasSuffix(applied, "@"+digest):
			what := "has applied nothing yet"
			if applied != "" {
				what = "last applied " + applied
			}
			if ready != nil && ready.Status == "False" {
				what += fmt.Sprintf(" (Ready False, %s: %s)", ready.Reason, ready.Message)
			}
			waiting = append(waiting, "Kustomization "+k.GetName()+" "+what)
		case ready == nil || ready.Status != "True" || observed != k.GetGeneration():
			what := "not Ready yet"
			if ready != nil {
				what = fmt.Sprintf("Ready %s, %s: %s", ready.Status, ready.Reason, ready.Message)
			}
			failing = append(failing, "Kustomization "+k.GetName()+" applied it and is "+what)
		}
	}
	sort.Strings(out.Kustomizations)
	sort.Strings(waiting)
	sort.Strings(failing)
	switch {
	case len(out.Kustomizations) == 0:
		out.Reason, out.Message = ReasonNoConsumer, fmt.Sprintf("no Kustomization of namespace %s applies ExternalArtifact %s "+
			"(spec.sourceRef {kind: ExternalArtifact, name: %s}): nothing applies what the instance publishes", ti.Namespace, ti.Name, ti.Name)
	case len(waiting) > 0:
		out.Reason, out.Message = ReasonNotYet, strings.Join(append(waiting, failing...), "; ")
	case len(failing) > 0:
		out.Reason, out.Message = ReasonApplyFailing, strings.Join(failing, "; ")
	default:
		out.Done, out.Reason = true, ReasonApplied
		out.Message = "applied by Kustomization " + strings.Join(out.Kustomizations, ", ")
	}
	return out, nil
}
