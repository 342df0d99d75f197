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

package registry

import (
	"context"

	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// Identity is the authenticated user of a request, copied out of it so that the server can
// record it in an object (a TemplateInstance's requester, a Template's author) and later act
// as that user or ask what that user may do.
type Identity struct {
	Username string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

// IdentityFrom returns the authenticated user of ctx; ok is false when the request has none.
func IdentityFrom(ctx context.Context) (id Identity, ok bool) {
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok || u == nil {
		return Identity{}, false
	}
	return IdentityOf(u), true
}

// IdentityOf copies u, so that the record never shares slices or maps with the request.
func IdentityOf(u user.Info) Identity {
	id := Identity{Username: u.GetName(), UID: u.GetUID()}
	if groups := u.GetGroups(); len(groups) > 0 {
		id.Groups = append([]string(nil), groups...)
	}
	if extra := u.GetExtra(); len(extra) > 0 {
		id.Extra = make(map[string][]string, len(extra))
		for k, v := range extra {
			id.Extra[k] = append([]string(nil), v...)
		}
	}
	return id
}
