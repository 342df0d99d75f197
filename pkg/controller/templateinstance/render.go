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

package templateinstance

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
)

// failure is a problem of the instance, reported in its Failed condition and retried with
// backoff: a missing template, a 422 of processing, a refused object.
type failure struct {
	reason, message string
}

func (f *failure) Error() string { return f.reason + ": " + f.message }

func fail(reason, format string, args ...interface{}) *failure {
	return &failure{reason: reason, message: fmt.Sprintf(format, args...)}
}

// rendered is what one instance renders to.
type rendered struct {
	// objects are the processed objects in template order.
	objects []*unstructured.Unstructured
	// generated are the values of generated parameters, to keep in the instance's Secret;
	// nil when the template generates nothing.
	generated map[string]string
	// templateResourceVersion is the stored Template's, empty for an inline one.
	templateResourceVersion string
	// unreadGenerated is why the kept generated values could not be read; reported after the
	// preflight, which names every object the requester may not write, so that values are
	// never generated anew because they could not be read.
	unreadGenerated error
	// authors are the last writers of the stored Templates rendered (the referenced one and
	// every one imported): each must be allowed what the instance does, as the requester is.
	authors []author
	// revision is the revision of the stored Template rendered, current the Template's own;
	// both 0 for an inline template or one stored before revisions were recorded.
	revision, current int64
	// hash is inventory.OutputHash of the objects.
	hash string
	// freshGenerated says a generated parameter got a new value (none was kept, or its
	// rotation was asked for): the generated-values Secret changes, whatever the objects hold.
	freshGenerated bool
}

// requesterInfo is the requester as the authorizer and the renderer see a user.
func requesterInfo(r *templatesv1.TemplateInstanceRequester) user.Info {
	return &user.DefaultInfo{Name: r.Username, UID: r.UID, Groups: r.Groups, Extra: r.Extra}
}

// render renders the instance's template with its values as its requester: the requester
// must be allowed to process the template, and values come from Secrets the requester reads.
func (c *Controller) render(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier) (*rendered, error) {
	return c.renderAdopting(ctx, ti, a, nil)
}

// renderAdopting renders as render does, with adopted as the values of the generated
// parameters that keep none yet: the values an adoption found in the live objects.
func (c *Controller) renderAdopting(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, adopted map[string]string) (*rendered, error) {
	requester := requesterInfo(ti.Spec.Requester)
	ctx = genericapirequest.WithNamespace(genericapirequest.WithUser(ctx, requester), ti.Namespace)
	t, stored, err := c.template(ctx, ti, requester)
	if err != nil {
		return nil, err
	}
	current := t
	if stored {
		if t, err = c.revisionToRender(ctx, ti, current); err != nil {
			return nil, err
		}
	}
	values, err := parameterValues(ctx, ti, t, a)
	if err != nil {
		return nil, err
	}
	generatedNames := inventory.GeneratedParameters(t, values)
	var unreadGenerated error
	if len(generatedNames) > 0 {
		if err := reuseGenerated(ctx, ti, a, generatedNames, values); err != nil {
			if _, ok := err.(*failure); !ok {
				return nil, err
			}
			unreadGenerated = err
		}
	}
	for n := range generatedNames {
		if v, ok := adopted[n]; ok && values[n] == "" {
			values[n] = v
		}
	}
	freshGenerated := false
	for n := range generatedNames {
		freshGenerated = freshGenerated || values[n] == ""
	}
	out, err := c.cfg.Renderer.RenderObjects(ctx, render.Input{
		Template:   t,
		Stored:     stored,
		Request:    process.Request{Parameters: values, Labels: ti.Spec.Labels},
		Properties: ti.Spec.Properties,
	})
	if err != nil {
		return nil, fail("ProcessingFailed", "%s", statusMessage(err))
	}
	r := &rendered{unreadGenerated: unreadGenerated, hash: inventory.OutputHash(out.Objects), freshGenerated: freshGenerated}
	if stored {
		r.templateResourceVersion = current.ResourceVersion
		r.authors = append(r.authors, authorOf(t))
		if t.Revision != nil {
			r.revision, r.current = t.Revision.Number, current.Revision.Number
		}
	}
	for _, imported := range out.Imported {
		r.authors = append(r.authors, authorOf(imported))
	}
	if len(generatedNames) > 0 {
		r.generated = map[string]string{}
		for _, p := range out.Parameters {
			if generatedNames[p.Name] {
				r.generated[p.Name] = p.Value
			}
		}
	}
	for i, item := range out.Objects {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(item); err != nil {
			return nil, fail("ProcessingFailed", "object %d of the processed template: %v", i, err)
		}
		r.objects = append(r.objects, obj)
	}
	return r, nil
}

// template returns the template to render: the stored one, which the requester must be
// allowed to process (create on templates/processed, as the endpoint asks), or the inline
// one (create on processedtemplates).
func (c *Controller) template(ctx context.Context, ti *templatesv1.TemplateInstance, requester user.Info) (*templates.Template, bool, error) {
	attrs := authorizer.AttributesRecord{User: requester, Verb: "create", APIGroup: templates.GroupName, APIVersion: "v1alpha1",
		Namespace: ti.Namespace, ResourceRequest: true, Resource: "processedtemplates"}
	if ref := ti.Spec.TemplateRef; ref != nil {
		attrs.Resource, attrs.Subresource, attrs.Name = "templates", "processed", ref.Name
	}
	if allowed, reason := c.authorize(ctx, attrs); !allowed {
		return nil, false, fail("Forbidden", "%s may not process %s: %s", requester.GetName(), describeAttrs(attrs), reason)
	}
	if ref := ti.Spec.TemplateRef; ref != nil {
		t, err := c.cfg.Templates.Template(ctx, ti.Namespace, ref.Name)
		if apierrors.IsNotFound(err) {
			return nil, false, fail("TemplateNotFound", "Template %s/%s does not exist", ti.Namespace, ref.Name)
		}
		if err != nil {
			return nil, false, err
		}
		return t, true, nil
	}
	if ti.Spec.Template == nil {
		return nil, false, fail("NoTemplate", "spec has neither templateRef nor template")
	}
	t, _, err := process.DecodeTemplate(ti.Spec.Template.Raw)
	if err != nil {
		return nil, false, fail("InvalidTemplate", "spec.template: %v", err)
	}
	return t, false, nil
}

// authorize asks the server's authorizer (a SubjectAccessReview in a cluster) about attrs.
func (c *Controller) authorize(ctx context.Context, attrs authorizer.AttributesRecord) (bool, string) {
	decision, reason, err := c.cfg.Authorizer.Authorize(ctx, attrs)
	if decision == authorizer.DecisionAllow {
		return true, ""
	}
	if err != nil {
		reason = err.Error()
	}
	if reason == "" {
		reason = "no rule allows it"
	}
	return false, reason
}

func describeAttrs(a authorizer.AttributesRecord) string {
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.APIGroup != "" {
		resource += "." + a.APIGroup
	}
	if a.Name != "" {
		resource += " " + a.Name
	}
	return resource
}

// parameterValues merges the instance's values as inventory.ParameterValues does, reading
// its parametersFrom Secrets as the requester.
func parameterValues(ctx context.Context, ti *templatesv1.TemplateInstance, t *templates.Template, a Applier) (map[string]string, error) {
	return inventory.ParameterValues(ti, t, func(name string) (map[string][]byte, error) {
		data, err := a.SecretData(ctx, ti.Namespace, name)
		if err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
				return nil, fail("ParametersSecret", "Secret %s/%s of parametersFrom: %s", ti.Namespace, name, statusMessage(err))
			}
			return nil, err
		}
		return data, nil
	})
}

// GeneratedSecretName names the Secret that keeps an instance's generated values.
func GeneratedSecretName(instance string) string { return instance + validation.GeneratedSecretSuffix }

// reuseGenerated puts the values kept in the instance's Secret into values, but for the
// parameters whose rotation is asked for: those are generated again.
func reuseGenerated(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, names map[string]bool, values map[string]string) error {
	name := GeneratedSecretName(ti.Name)
	data, err := a.SecretData(ctx, ti.Namespace, name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if apierrors.IsForbidden(err) {
		return fail("Forbidden", "reading the generated values in Secret %s/%s: %s", ti.Namespace, name, statusMessage(err))
	}
	if err != nil {
		return err
	}
	rotate := rotationRequest(ti)
	for n := range names {
		if v, ok := data[n]; ok && !rotate[n] {
			values[n] = string(v)
		}
	}
	return nil
}

// rotationRequest is the set of parameters the rotation annotation names.
func rotationRequest(ti *templatesv1.TemplateInstance) map[string]bool {
	set := map[string]bool{}
	for _, n := range strings.Split(ti.Annotations[templatesv1.AnnotationRotateGeneratedParameters], ",") {
		if n = strings.TrimSpace(n); n != "" {
			set[n] = true
		}
	}
	return set
}

// statusMessage is an API error's message as a user reads it (a 422's lists every cause).
func statusMessage(err error) string {
	if status, ok := err.(apierrors.APIStatus); ok {
		return status.Status().Message
	}
	return err.Error()
}
