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

package authz

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// TestAsk: the authorizer's three answers, as kube-apiserver's filter reads them.
func TestAsk(t *testing.T) {
	outage := errors.New("dial tcp: connection refused")
	for _, tc := range []struct {
		name                 string
		decision             authorizer.Decision
		reason               string
		err                  error
		allowed, unavailable bool
		wantReason           string
	}{
		{"allowed", authorizer.DecisionAllow, "", nil, true, false, ""},
		{"allowed by one authorizer while another failed", authorizer.DecisionAllow, "", outage, true, false, ""},
		{"denied", authorizer.DecisionDeny, "RBAC: no", nil, false, false, "RBAC: no"},
		{"no opinion", authorizer.DecisionNoOpinion, "", nil, false, false, "no rule allows it"},
		{"SubjectAccessReviews fail", authorizer.DecisionNoOpinion, "", outage, false, true, ""},
		{"SubjectAccessReviews fail with a reason", authorizer.DecisionNoOpinion, "webhook", outage, false, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
				return tc.decision, tc.reason, tc.err
			})
			allowed, reason, err := Ask(context.Background(), a, authorizer.AttributesRecord{})
			if allowed != tc.allowed || reason != tc.wantReason || (err != nil) != tc.unavailable {
				t.Fatalf("Ask: %v %q %v", allowed, reason, err)
			}
			required := Require(context.Background(), a, authorizer.AttributesRecord{}, func(reason string) error {
				return apierrors.NewForbidden(schema.GroupResource{Resource: "things"}, "x", errors.New(reason))
			})
			switch {
			case tc.allowed && required != nil:
				t.Errorf("Require: %v", required)
			case tc.unavailable && (!IsUnavailable(required) || apierrors.IsForbidden(required)):
				t.Errorf("an outage is %v, not a 503", required)
			case tc.unavailable:
				if s, ok := required.(apierrors.APIStatus); !ok || s.Status().Details.RetryAfterSeconds == 0 {
					t.Errorf("an outage without Retry-After: %v", required)
				}
			case !tc.allowed && !apierrors.IsForbidden(required):
				t.Errorf("a refusal is %v", required)
			}
		})
	}
}
