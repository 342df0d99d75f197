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
	"strings"

	"stencil.dev/stencil/pkg/controller/instance"
)

// Split sorts the plan of a published instance's render into what the controller applies
// itself (the generated values' Secret and the render's Secrets) and what the artifact
// carries. It refuses, with reason SecretsNotPublished, a render holding a Secret unless the
// instance has the controller apply its Secrets (publishesSecrets), and, whatever that policy,
// one whose published objects hold a secret value in any field or key (holds tells one). The
// controller's pass and the preview of a published instance decide alike through it. Its
// messages name objects and fields; a field's path may hold a value, so callers scrub them.
func Split(plan []*instance.Planned, publishesSecrets bool, holds func(string) bool) (managed, published []*instance.Planned, err error) {
	var secrets []string
	for _, p := range plan {
		switch {
		case p.Generated:
			managed = append(managed, p)
		case IsSecret(p.Obj):
			managed = append(managed, p)
			secrets = append(secrets, p.String())
		default:
			published = append(published, p)
		}
	}
	if len(secrets) > 0 && !publishesSecrets {
		return nil, nil, instance.Fail("SecretsNotPublished", "nothing was published: the render holds %s, and whoever may read the "+
			"ExternalArtifact could fetch an artifact's content; set spec.delivery.externalArtifact.secrets to Apply to have the "+
			"controller apply the Secrets as the requester and publish the rest", strings.Join(secrets, ", "))
	}
	var leaks []string
	for _, p := range published {
		for _, path := range SecretFields(p.Obj, holds) {
			leaks = append(leaks, p.String()+" at "+path)
		}
	}
	if len(leaks) > 0 {
		return nil, nil, instance.Fail("SecretsNotPublished", "nothing was published: %s holds the value of a secret parameter, a "+
			"generated one or one read from a Secret, and whoever may read the ExternalArtifact could fetch it; keep such values in "+
			"the template's Secrets (spec.delivery.externalArtifact.secrets: Apply applies them)", strings.Join(leaks, ", "))
	}
	return managed, published, nil
}
