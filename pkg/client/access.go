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

package client

import (
	"context"
	"encoding/json"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/rest"
)

// AccessReviews asks the cluster what its user may do, by a SelfSubjectAccessReview as
// kubectl auth can-i does, without client-go's typed clientset (which links its scheme).
type AccessReviews struct {
	client rest.Interface
}

// NewAccessReviewsForConfig asks the server of c, as the user of c.
func NewAccessReviewsForConfig(c *rest.Config) (*AccessReviews, error) {
	client, err := unversionedClient(c)
	if err != nil {
		return nil, err
	}
	return &AccessReviews{client: client}, nil
}

// Create posts review and returns the cluster's answer; a server that does not serve
// authorization.k8s.io/v1 answers NotFound.
func (a *AccessReviews) Create(ctx context.Context, review *authorizationv1.SelfSubjectAccessReview) (*authorizationv1.SelfSubjectAccessReview, error) {
	in := *review
	in.APIVersion, in.Kind = authorizationv1.SchemeGroupVersion.String(), "SelfSubjectAccessReview"
	body, err := json.Marshal(&in)
	if err != nil {
		return nil, err
	}
	path := "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	out := &authorizationv1.SelfSubjectAccessReview{}
	req := a.client.Post().AbsPath(path).SetHeader("Content-Type", "application/json").Body(body)
	_, err = readJSON(ctx, req, path, out)
	return out, err
}
