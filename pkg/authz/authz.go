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

// Package authz asks the server's authorizer (SubjectAccessReviews of kube-apiserver in a
// cluster) the questions Stencil asks about its users, and tells a refusal from an outage the
// way kube-apiserver's own authorization filter does: allowed is allowed whatever else the
// authorizer says; otherwise an error is an outage, answered 503 with Retry-After so that
// clients retry it, and never reported, cached or acted on as "forbidden"; otherwise it is a
// refusal, with the authorizer's reason.
package authz

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// RetryAfterSeconds is what an outage's answer asks a client to wait.
const RetryAfterSeconds = 2

// Ask asks a about attrs. It returns whether attrs are allowed and, when not, why; err is set
// only when the authorizer could not answer (Unavailable's error).
func Ask(ctx context.Context, a authorizer.Authorizer, attrs authorizer.Attributes) (allowed bool, reason string, err error) {
	decision, reason, err := a.Authorize(ctx, attrs)
	switch {
	case decision == authorizer.DecisionAllow:
		return true, "", nil
	case err != nil:
		return false, "", Unavailable(err)
	case reason == "":
		reason = "no rule allows it"
	}
	return false, reason, nil
}

// Unavailable is the API's answer to an authorizer that could not answer: 503 with a
// Retry-After, which client-go retries.
func Unavailable(err error) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code == http.StatusServiceUnavailable {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable, Reason: metav1.StatusReasonServiceUnavailable,
		Message: fmt.Sprintf("the authorizer could not answer, try again: %v", err),
		Details: &metav1.StatusDetails{RetryAfterSeconds: RetryAfterSeconds},
	}}
}

// IsUnavailable says err is an outage of the authorizer (Unavailable's).
func IsUnavailable(err error) bool {
	return apierrors.IsServiceUnavailable(err)
}

// Require returns nil when attrs are allowed, Unavailable's error when the authorizer could
// not answer, else what refused makes of the authorizer's reason (a 403 for an API request).
func Require(ctx context.Context, a authorizer.Authorizer, attrs authorizer.Attributes, refused func(reason string) error) error {
	allowed, reason, err := Ask(ctx, a, attrs)
	switch {
	case err != nil:
		return err
	case !allowed:
		return refused(reason)
	}
	return nil
}

// Describe names the object attrs ask about, as "resource/subresource.group name".
func Describe(a authorizer.Attributes) string {
	resource := a.GetResource()
	if a.GetSubresource() != "" {
		resource += "/" + a.GetSubresource()
	}
	if a.GetAPIGroup() != "" {
		resource += "." + a.GetAPIGroup()
	}
	if a.GetName() != "" {
		resource += " " + a.GetName()
	}
	return resource
}
