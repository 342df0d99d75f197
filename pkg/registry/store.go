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
	"errors"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
)

// Store is the generic registry store of one kind, answering with a 4xx the requests that it
// would answer with a 500 although the request is at fault (kube-apiserver answers them with
// a 500 too): a resourceVersion that is not an etcd revision on get, watch and update; one
// set on create; and patches that cannot be applied (see CheckedUpdate).
type Store struct {
	*genericregistry.Store
	kind schema.GroupKind
}

// NewStore wraps store, whose objects are of kind.
func NewStore(store *genericregistry.Store, kind schema.GroupKind) Store {
	return Store{Store: store, kind: kind}
}

// Create creates obj; a resourceVersion set on it is a 422, as the storage refuses it.
func (s Store) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	out, err := s.Store.Create(ctx, obj, createValidation, options)
	if errors.Is(err, storage.ErrResourceVersionSetOnCreate) {
		accessor, _ := meta.Accessor(obj)
		name, rv := "", ""
		if accessor != nil {
			name, rv = accessor.GetName(), accessor.GetResourceVersion()
		}
		return nil, apierrors.NewInvalid(s.kind, name, field.ErrorList{field.Invalid(
			field.NewPath("metadata", "resourceVersion"), rv, "must be empty when creating an object")})
	}
	return out, err
}

// Update updates through CheckedUpdate.
func (s Store) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return s.Store.Update(ctx, name, CheckedUpdate(objInfo, s.kind), createValidation, updateValidation, forceAllowCreate, options)
}

// Get reads one object; a resourceVersion that is not a revision is a 400, as list answers it.
func (s Store) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	if options != nil {
		if err := checkReadVersion(options.ResourceVersion); err != nil {
			return nil, err
		}
	}
	return s.Store.Get(ctx, name, options)
}

// Watch watches objects; a resourceVersion that is not a revision is a 400, as list answers it.
func (s Store) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	if options != nil {
		if err := checkReadVersion(options.ResourceVersion); err != nil {
			return nil, err
		}
	}
	return s.Store.Watch(ctx, options)
}

// checkReadVersion accepts the versions the storage parses: none, or an unsigned integer.
func checkReadVersion(rv string) error {
	if rv == "" {
		return nil
	}
	if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
		return apierrors.NewBadRequest("invalid resource version " + strconv.Quote(rv) + ": must be a resourceVersion read from this server")
	}
	return nil
}
