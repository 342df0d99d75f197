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

package ui

import (
	"context"
	"errors"
	"net/http"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/client"
)

// rollouts are the rollout panel's question (may this user pause, resume or undo the rollout
// of a Template?) and its writes, made here as the user with the CLI's own code
// (pkg/client), so that the pages need no write access to Templates through the proxy: the
// buttons can do these three things and nothing else. The cluster decides: a button shown to
// someone who may not is refused by it, and so is a request forged without the button.
type rollouts struct {
	templates client.Interface
	reviews   *client.AccessReviews
}

func newRollouts(config *rest.Config) (*rollouts, error) {
	templates, err := client.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	reviews, err := client.NewAccessReviewsForConfig(config)
	if err != nil {
		return nil, err
	}
	return &rollouts{templates: templates, reviews: reviews}, nil
}

// rolloutAccess is the answer of GET /ui/api/rollout: whether the buttons are offered.
type rolloutAccess struct {
	Allowed bool `json:"allowed"`
	// Reason says why not, in the authorizer's words when it gave any.
	Reason string `json:"reason,omitempty"`
}

// serveAccess answers whether the user may update the Template ?namespace=&name=, which
// pause, resume and undo are (as kubectl rollout's are updates of a Deployment).
func (r *rollouts) serveAccess(w http.ResponseWriter, req *http.Request) {
	namespace, name := req.URL.Query().Get("namespace"), req.URL.Query().Get("name")
	if !validTemplate(w, namespace, name) {
		return
	}
	ctx, cancel := context.WithTimeout(req.Context(), actionTimeout)
	defer cancel()
	allowed, reason, err := r.mayUpdate(ctx, namespace, name)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rolloutAccess{Allowed: allowed, Reason: reason})
}

// mayUpdate asks the cluster with a SelfSubjectAccessReview, as kubectl auth can-i does; a
// server that serves no authorization.k8s.io (Stencil's local mode) is asked by a dry run of
// the update, with nothing changed.
func (r *rollouts) mayUpdate(ctx context.Context, namespace, name string) (bool, string, error) {
	review, err := r.reviews.Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: "update", Group: templatesv1.SchemeGroupVersion.Group, Resource: "templates", Name: name}},
	})
	switch {
	case err == nil:
		return review.Status.Allowed, review.Status.Reason, nil
	case !apierrors.IsNotFound(err):
		return false, "", err
	}
	t, err := r.templates.Templates(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, "", err
	}
	_, err = r.templates.Templates(namespace).Update(ctx, t, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	switch {
	case err == nil:
		return true, "", nil
	case apierrors.IsForbidden(err):
		return false, err.Error(), nil
	}
	return false, "", err
}

// rolloutRequest is the body of POST /ui/api/rollout.
type rolloutRequest struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Action is pause, resume or undo.
	Action string `json:"action"`
	// ToRevision is undo's revision to go back to; 0 the one the rollout started from.
	ToRevision int64 `json:"toRevision,omitempty"`
}

// serveRollout pauses, resumes or undoes the rollout of a Template, as the user.
func (r *rollouts) serveRollout(w http.ResponseWriter, req *http.Request) {
	var body rolloutRequest
	if !decodeStrictBody(w, req, &body) || !validTemplate(w, body.Namespace, body.Name) {
		return
	}
	ctx, cancel := context.WithTimeout(req.Context(), actionTimeout)
	defer cancel()
	// The cluster is asked first, so that a request the page would not have offered is refused
	// even when it would change nothing (a resume of a rollout that is not paused); the write
	// itself is the cluster's to refuse as well.
	allowed, reason, err := r.mayUpdate(ctx, body.Namespace, body.Name)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	if !allowed {
		message := "you may not update template " + quote(body.Name) + " in namespace " + quote(body.Namespace) + ", which " + body.Action + " is"
		if reason != "" {
			message += ": " + reason
		}
		writeError(w, http.StatusForbidden, message)
		return
	}
	var said string
	switch body.Action {
	case "pause":
		said, err = client.PauseRollout(ctx, r.templates, body.Namespace, body.Name)
	case "resume":
		said, err = client.ResumeRollout(ctx, r.templates, body.Namespace, body.Name)
	case "undo":
		if body.ToRevision < 0 {
			writeError(w, http.StatusUnprocessableEntity, "toRevision must not be negative")
			return
		}
		said, err = client.UndoRollout(ctx, r.templates, body.Namespace, body.Name, body.ToRevision)
	default:
		writeError(w, http.StatusUnprocessableEntity, `action must be "pause", "resume" or "undo", not "`+body.Action+`"`)
		return
	}
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": said})
}

// validTemplate answers 422 itself unless namespace and name can name a Template.
func validTemplate(w http.ResponseWriter, namespace, name string) bool {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		writeError(w, http.StatusUnprocessableEntity, "namespace "+quote(namespace)+": "+errs[0])
		return false
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		writeError(w, http.StatusUnprocessableEntity, "name "+quote(name)+": "+errs[0])
		return false
	}
	return true
}

// writeAPIError answers the cluster's refusal with its own code and words (403 when the user
// may not), any other failure as 422: what the write could not do (no rollout, a revision not
// kept).
func writeAPIError(w http.ResponseWriter, err error) {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code >= 400 {
		writeError(w, int(status.Status().Code), err.Error())
		return
	}
	writeError(w, http.StatusUnprocessableEntity, err.Error())
}

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return `"` + s + `"`
}
