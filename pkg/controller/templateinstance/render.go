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
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/redact"
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

// scrubbed is err with the values of set kept out of its message: a failure's message, an API
// status's message and causes (in a copy), any other error's text. Its kind stays, so that
// the controller still tells a failure of the instance from one of the cluster.
func scrubbed(err error, set *redact.Set) error {
	if err == nil || set.Len() == 0 {
		return err
	}
	var f *failure
	if errors.As(err, &f) {
		return &failure{reason: f.reason, message: set.ScrubString(f.message)}
	}
	if status, ok := err.(apierrors.APIStatus); ok {
		st := status.Status()
		st.Message = set.ScrubString(st.Message)
		if d := st.Details; d != nil {
			details := *d
			details.Name = set.ScrubString(d.Name)
			details.Causes = make([]metav1.StatusCause, len(d.Causes))
			for i, c := range d.Causes {
				details.Causes[i] = metav1.StatusCause{Type: c.Type, Message: set.ScrubString(c.Message), Field: set.ScrubString(c.Field)}
			}
			st.Details = &details
		}
		return &apierrors.StatusError{ErrStatus: st}
	}
	return errors.New(set.ScrubString(err.Error()))
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
	// secrets are the values no message may quote (redact.Parameter's, and every value read
	// from a Secret); fromSecrets those of them read from parametersFrom Secrets, which never
	// name an object. Both are set as soon as they are known, also when rendering fails.
	secrets, fromSecrets *redact.Set
}

// scrub keeps the secret values of r out of err's message.
func (r *rendered) scrub(err error) error {
	if r == nil {
		return err
	}
	return scrubbed(err, r.secrets)
}

// requesterInfo is the requester as the authorizer and the renderer see a user.
func requesterInfo(r *templatesv1.TemplateInstanceRequester) user.Info {
	return &user.DefaultInfo{Name: r.Username, UID: r.UID, Groups: r.Groups, Extra: r.Extra}
}

// render renders the instance's template with its values as its requester: the requester
// must be allowed to process the template, values come from the Secrets and ConfigMaps the
// requester reads, and every author of what is rendered must be allowed to read them too
// (authorizeInputs), which is asked before any value is checked or used. It returns what it
// knows of the secrets also with an error.
func (c *Controller) render(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier) (*rendered, error) {
	return c.renderAdopting(ctx, ti, a, nil)
}

// renderAdopting renders as render does, with adopted as the values of the generated
// parameters that keep none yet: the values an adoption found in the live objects.
func (c *Controller) renderAdopting(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, adopted map[string]string) (*rendered, error) {
	r := &rendered{secrets: &redact.Set{}, fromSecrets: &redact.Set{}}
	requester := requesterInfo(ti.Spec.Requester)
	ctx = genericapirequest.WithNamespace(genericapirequest.WithUser(ctx, requester), ti.Namespace)
	t, stored, err := c.template(ctx, ti, requester)
	if err != nil {
		return r, err
	}
	current := t
	if stored {
		if t, err = c.revisionToRender(ctx, ti, current); err != nil {
			return r, err
		}
	}
	inputs, err := readInputs(ctx, ti, t, a)
	if err != nil {
		return r, err
	}
	r.secrets.Add(inputs.Secrets...)
	generatedNames := inventory.GeneratedParameters(t, inputs.Values)
	if len(generatedNames) > 0 {
		if err := reuseGenerated(ctx, ti, a, generatedNames, inputs); err != nil {
			if _, ok := err.(*failure); !ok {
				return r, err
			}
			r.unreadGenerated = err
		}
	}
	for n := range generatedNames {
		if v, ok := adopted[n]; ok && inputs.Values[n] == "" {
			inputs.Values[n] = v
		}
	}
	addSecrets(r, t.Parameters, inputs, nil)
	for n := range generatedNames {
		r.freshGenerated = r.freshGenerated || inputs.Values[n] == ""
	}
	out, err := c.cfg.Renderer.RenderObjects(ctx, render.Input{
		Template:   t,
		Stored:     stored,
		Request:    process.Request{Parameters: inputs.Values, FromSecret: inputs.FromSecret, Labels: ti.Spec.Labels},
		Properties: ti.Spec.Properties,
		Admit: func(imported []*templates.Template) error {
			var authors []author
			if stored {
				authors = append(authors, authorOf(t))
			}
			return c.authorizeInputs(ctx, ti, append(authors, authorsOf(imported)...), inputs.Read)
		},
	})
	if err != nil {
		// The rule of what the instance reads refused it, or the authorizer could not answer.
		var f *failure
		if errors.As(err, &f) || authz.IsUnavailable(err) {
			return r, err
		}
		return r, fail("ProcessingFailed", "%s", statusMessage(err))
	}
	if err := c.publishable(ctx, ti, len(out.Objects)); err != nil {
		return r, err
	}
	addSecrets(r, t.Parameters, inputs, out.Parameters)
	r.hash = inventory.OutputHash(c.cfg.HashKey, out.Objects)
	if stored {
		r.templateResourceVersion = current.ResourceVersion
		r.authors = append(r.authors, authorOf(t))
		if t.Revision != nil {
			r.revision, r.current = t.Revision.Number, current.Revision.Number
		}
	}
	r.authors = append(r.authors, authorsOf(out.Imported)...)
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
			return r, fail("ProcessingFailed", "object %d of the processed template: %v", i, err)
		}
		r.objects = append(r.objects, obj)
	}
	return r, nil
}

// addSecrets adds to r the values of the declared parameters that redact.Hidden hides, as
// given (values) or as the engine used them (used, when set), and marks those read from
// parametersFrom Secrets.
func addSecrets(r *rendered, declared []templates.Parameter, inputs *inventory.Inputs, used []templates.Parameter) {
	values := inputs.Values
	if used != nil {
		values = make(map[string]string, len(used))
		for _, p := range used {
			values[p.Name] = p.Value
		}
	}
	for i := range declared {
		p := &declared[i]
		v, from := values[p.Name], inputs.FromSecret[p.Name]
		if from {
			r.fromSecrets.Add(v)
		}
		if redact.Hidden(p, v, from) {
			r.secrets.Add(v)
		}
	}
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
	if allowed, reason, err := c.authorize(ctx, attrs); err != nil || !allowed {
		if err != nil {
			return nil, false, err
		}
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

// authorize asks the server's authorizer (a SubjectAccessReview in a cluster) about attrs;
// err is an outage of the authorizer, never a refusal.
func (c *Controller) authorize(ctx context.Context, attrs authorizer.AttributesRecord) (bool, string, error) {
	return authz.Ask(ctx, c.cfg.Authorizer, attrs)
}

func describeAttrs(a authorizer.AttributesRecord) string { return authz.Describe(a) }

// readInputs merges the instance's values as inventory.ReadInputs does, reading its
// parametersFrom sources as the requester. A source the requester may not read, or that does
// not exist, is the instance's failure, named without a value.
func readInputs(ctx context.Context, ti *templatesv1.TemplateInstance, t *templates.Template, a Applier) (*inventory.Inputs, error) {
	return inventory.ReadInputs(ti, t, func(src inventory.Source) (map[string][]byte, error) {
		data, err := a.SourceData(ctx, ti.Namespace, src)
		if err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
				return nil, fail("ParametersSecret", "%s %s/%s of parametersFrom: %s", src.Kind, ti.Namespace, src.Name, statusMessage(err))
			}
			return nil, err
		}
		return data, nil
	})
}

// GeneratedSecretName names the Secret that keeps an instance's generated values.
func GeneratedSecretName(instance string) string { return instance + validation.GeneratedSecretSuffix }

// reuseGenerated puts the values kept in the instance's Secret into inputs, but for the
// parameters whose rotation is asked for: those are generated again.
func reuseGenerated(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, names map[string]bool, inputs *inventory.Inputs) error {
	src := inventory.Source{Kind: inventory.SecretKind, Name: GeneratedSecretName(ti.Name)}
	data, err := a.SourceData(ctx, ti.Namespace, src)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if apierrors.IsForbidden(err) {
		return fail("Forbidden", "reading the generated values in Secret %s/%s: %s", ti.Namespace, src.Name, statusMessage(err))
	}
	if err != nil {
		return err
	}
	inputs.Keep(src, data, names, rotationRequest(ti))
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
