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

// Package instancetest holds what the tests of the pass library, the controller and the
// preview share: client-go's fake clients of this server's API and of a target cluster
// (whose server-side apply creates), an authorizer that records its questions, and the
// instances, Templates and objects the tests are written with. Only tests import it.
package instancetest

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/install"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/appliers"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/publish"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/generated/clientset/versioned/fake"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

// HashKey keys the tests' rendered hashes.
var HashKey = []byte("the tests' hash key, 32 bytes...")

// Mapper knows the kinds the tests render, as the target's discovery would.
func Mapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Service"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot)
	return m
}

// Fakes are the fake clients of a controller or a preview.
type Fakes struct {
	// Instances holds this server's API: TemplateInstances, Templates, TemplateRevisions.
	Instances *fake.Clientset
	// Target is the target cluster, Kube its typed client (SelfSubjectAccessReviews).
	Target *dynamicfake.FakeDynamicClient
	Kube   *kubefake.Clientset
	// Authz is the server's authorizer.
	Authz *Rules
	// Appliers hand every requester one Applier over Target.
	Appliers *SameApplier
	// Templates reads Instances' Templates; Renderer is the server's adapter over it.
	Templates TrackerTemplates
	Renderer  *renderrest.Adapter
}

// NewFakes holds objects in this server's API and live in the target cluster; deny refuses
// the authorizer's questions it answers true to.
func NewFakes(objects, live []runtime.Object, deny func(authorizer.Attributes) bool) *Fakes {
	f := &Fakes{Instances: fake.NewClientset(objects...), Target: NewTarget(live...), Kube: kubefake.NewClientset(), Authz: &Rules{Deny: deny}}
	f.Appliers = &SameApplier{Applier: appliers.NewClient(f.Target, f.Kube)}
	scheme := runtime.NewScheme()
	install.Install(scheme)
	f.Templates = TrackerTemplates{tracker: f.Instances.Tracker(), scheme: scheme}
	f.Renderer = renderrest.NewAdapter(renderrest.Sources{Templates: f.Templates})
	return f
}

// Authorizer is Authz as an authorizer.Authorizer.
func (f *Fakes) Authorizer() authorizer.Authorizer {
	return authorizer.AuthorizerFunc(f.Authz.Authorize)
}

// Planner is the pass library over the fakes.
func (f *Fakes) Planner() *instance.Planner {
	p, err := instance.New(instance.Config{Templates: f.Templates, Renderer: f.Renderer, Mapper: Mapper(), Authorizer: f.Authorizer(), HashKey: HashKey})
	if err != nil {
		panic(err)
	}
	return p
}

// TargetActions describe what was done in the target cluster, as "verb resource
// namespace/name", a dry-run apply as "dry-run".
func (f *Fakes) TargetActions() []string {
	var out []string
	for _, a := range f.Target.Actions() {
		verb := a.GetVerb()
		if p, ok := a.(k8stesting.PatchActionImpl); ok && p.GetPatchType() == types.ApplyPatchType {
			verb = "apply"
			if len(p.PatchOptions.DryRun) > 0 {
				verb = "dry-run"
			}
		}
		var name string
		switch a := a.(type) {
		case k8stesting.GetAction:
			name = a.GetName()
		case k8stesting.PatchActionImpl:
			name = a.GetName()
		case k8stesting.DeleteAction:
			name = a.GetName()
		}
		out = append(out, fmt.Sprintf("%s %s %s/%s", verb, a.GetResource().Resource, a.GetNamespace(), name))
	}
	return out
}

// TrackerTemplates reads the Templates of a fake clientset's tracker (recording no action),
// converted to the internal type with the API's scheme, as storage decodes them. It is also
// the Templates' rest.Getter of the renderer, for imports.
type TrackerTemplates struct {
	tracker k8stesting.ObjectTracker
	scheme  *runtime.Scheme
}

// Template reads namespace/name.
func (r TrackerTemplates) Template(_ context.Context, namespace, name string) (*templates.Template, error) {
	obj, err := r.tracker.Get(templatesv1.SchemeGroupVersion.WithResource("templates"), namespace, name)
	if err != nil {
		return nil, err
	}
	out := &templates.Template{}
	return out, r.scheme.Convert(obj.(*templatesv1.Template).DeepCopy(), out, nil)
}

// Revision reads a TemplateRevision of the tracker as StorageTemplates reads one of storage.
func (r TrackerTemplates) Revision(_ context.Context, t *templates.Template, number int64) (*templates.Template, error) {
	obj, err := r.tracker.Get(templatesv1.SchemeGroupVersion.WithResource("templaterevisions"), t.Namespace, templatesv1.RevisionName(t.Name, number))
	if err != nil {
		return nil, err
	}
	rev := &templates.TemplateRevision{}
	if err := r.scheme.Convert(obj.(*templatesv1.TemplateRevision).DeepCopy(), rev, nil); err != nil {
		return nil, err
	}
	return templaterevision.TemplateOf(rev)
}

// Get reads a Template of the context's namespace, as the Templates' storage does.
func (r TrackerTemplates) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	namespace, _ := genericapirequest.NamespaceFrom(ctx)
	return r.Template(ctx, namespace, name)
}

// Rules is the tests' authorizer: it allows everything Deny does not refuse, and records
// every review as "user verb resource namespace/name".
type Rules struct {
	Deny  func(authorizer.Attributes) bool
	mu    sync.Mutex
	asked []string
}

// Authorize answers a.
func (r *Rules) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	resource := a.GetResource()
	if a.GetSubresource() != "" {
		resource += "/" + a.GetSubresource()
	}
	r.mu.Lock()
	r.asked = append(r.asked, fmt.Sprintf("%s %s %s %s/%s", a.GetUser().GetName(), a.GetVerb(), resource, a.GetNamespace(), a.GetName()))
	r.mu.Unlock()
	if r.Deny != nil && r.Deny(a) {
		return authorizer.DecisionNoOpinion, "RBAC: no binding", nil
	}
	return authorizer.DecisionAllow, "", nil
}

// Reset forgets the reviews asked so far.
func (r *Rules) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = nil
}

// Asked are the reviews asked so far.
func (r *Rules) Asked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.asked...)
}

// Refuse denies user the verb on resource (with its subresource as resource/sub).
func Refuse(user, verb, resource string) func(authorizer.Attributes) bool {
	return func(a authorizer.Attributes) bool {
		r := a.GetResource()
		if a.GetSubresource() != "" {
			r += "/" + a.GetSubresource()
		}
		return a.GetUser().GetName() == user && a.GetVerb() == verb && r == resource
	}
}

// SameApplier hands every requester the one Applier over the fake target, recording whom.
type SameApplier struct {
	Applier instance.Applier
	mu      sync.Mutex
	users   []string
}

// For returns the Applier.
func (s *SameApplier) For(r *templatesv1.TemplateInstanceRequester) (instance.Applier, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users = append(s.users, r.Username)
	return s.Applier, nil
}

// Users are the requesters asked for, in order.
func (s *SameApplier) Users() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.users...)
}

// NewTarget is a fake target cluster whose server-side apply creates what does not exist (the
// plain tracker only patches), keeps the uid of what does, gives each write a new
// resourceVersion, and stores nothing on a dry-run (of any patch).
func NewTarget(objects ...runtime.Object) *dynamicfake.FakeDynamicClient {
	// The list kinds of the objects given, as NewSimpleDynamicClient registers them, and of
	// Flux's Kustomizations, which published instances list.
	scheme := runtime.NewScheme()
	for _, obj := range objects {
		gvk := obj.GetObjectKind().GroupVersionKind()
		scheme.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
		scheme.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &unstructured.UnstructuredList{})
	}
	d := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme,
		map[schema.GroupVersionResource]string{publish.Kustomizations: "KustomizationList", {Version: "v1", Resource: "secrets"}: "SecretList"}, objects...)
	var uids, versions atomic.Int64
	d.PrependReactor("patch", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		patch := action.(k8stesting.PatchActionImpl)
		if patch.GetPatchType() != types.ApplyPatchType {
			if len(patch.PatchOptions.DryRun) == 0 {
				return false, nil, nil
			}
			// The tracker would store any other patch: a dry run answers the object as it is.
			live, err := d.Tracker().Get(patch.GetResource(), patch.GetNamespace(), patch.GetName())
			return true, live, err
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(patch.GetPatch()); err != nil {
			return true, nil, apierrors.NewBadRequest(err.Error())
		}
		gvr, namespace := patch.GetResource(), patch.GetNamespace()
		live, err := d.Tracker().Get(gvr, namespace, patch.GetName())
		exists := err == nil
		if !exists && !apierrors.IsNotFound(err) {
			return true, nil, err
		}
		if len(patch.PatchOptions.DryRun) > 0 {
			return true, obj, nil
		}
		obj.SetResourceVersion(fmt.Sprint(100 + versions.Add(1)))
		if exists {
			obj.SetUID(live.(*unstructured.Unstructured).GetUID())
			return true, obj, d.Tracker().Update(gvr, obj, namespace)
		}
		obj.SetUID(types.UID(fmt.Sprintf("uid-%d", uids.Add(1))))
		return true, obj, d.Tracker().Create(gvr, obj, namespace)
	})
	return d
}

// FailWith makes the target answer err to verb on resource; dryRun picks which applies.
func FailWith(d *dynamicfake.FakeDynamicClient, verb, resource string, dryRun bool, err error) {
	d.PrependReactor(verb, resource, func(action k8stesting.Action) (bool, runtime.Object, error) {
		if p, ok := action.(k8stesting.PatchActionImpl); ok && (len(p.PatchOptions.DryRun) > 0) != dryRun {
			return false, nil, nil
		}
		return true, nil, err
	})
}

// NewInstance is an instance of Template app in namespace demo that alice wrote, its
// finalizer added by an earlier pass; edits change it.
func NewInstance(name string, edits ...func(*templatesv1.TemplateInstance)) *templatesv1.TemplateInstance {
	ti := &templatesv1.TemplateInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID("ti-" + name), Generation: 1,
			Finalizers: []string{templatesv1.TemplateInstanceFinalizer}},
		Spec: templatesv1.TemplateInstanceSpec{TemplateRef: &templatesv1.TemplateReference{Name: "app"},
			Requester: &templatesv1.TemplateInstanceRequester{Username: "alice", Groups: []string{"system:authenticated"}}},
	}
	for _, edit := range edits {
		edit(ti)
	}
	return ti
}

// NewTemplate is a Template of namespace demo that alice wrote, of the objects given as JSON.
func NewTemplate(name string, objects ...string) *templatesv1.Template {
	t := &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID("t-" + name), ResourceVersion: "7"},
		Author:     &templatesv1.TemplateAuthor{Username: "alice", Groups: []string{"system:authenticated"}},
	}
	for _, o := range objects {
		t.Objects = append(t.Objects, runtime.RawExtension{Raw: []byte(o)})
	}
	return t
}

// ConfigMap is the object of the simplest Template.
const ConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"k":"v"}}`

// Member is an object of instance shop's set in the target cluster, as an earlier pass left it.
func Member(kind, name, uid string, edits ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": kind,
		"metadata": map[string]interface{}{"namespace": "demo", "name": name, "uid": uid}}}
	inventory.Label(u, inventory.ApplySetID("demo", "shop"))
	for _, edit := range edits {
		edit(u)
	}
	return u
}

// Terminating marks an object deleted and held by a finalizer.
func Terminating(u *unstructured.Unstructured) {
	now := metav1.Now()
	u.SetDeletionTimestamp(&now)
	u.SetFinalizers([]string{"example.com/hold"})
}

// Ref is the inventory entry of an object of namespace demo.
func Ref(kind, name, uid string) templatesv1.TemplateInstanceObject {
	return templatesv1.TemplateInstanceObject{APIVersion: "v1", Kind: kind, Namespace: "demo", Name: name, UID: types.UID(uid), Ready: true}
}

// OnRevision has the instance applied at revision number of generation 1, Ready.
func OnRevision(number int64) func(*templatesv1.TemplateInstance) {
	return func(ti *templatesv1.TemplateInstance) {
		ti.Status = templatesv1.TemplateInstanceStatus{ObservedGeneration: 1, TemplateResourceVersion: "6",
			TemplateRevision: &templatesv1.AppliedRevision{Number: number, AppliedHash: inventory.HashPrefix + "old", Generation: 1},
			Objects:          []templatesv1.TemplateInstanceObject{Ref("ConfigMap", "config", "uid-1")},
			Conditions: []metav1.Condition{
				{Type: templatesv1.TemplateInstanceReady, Status: metav1.ConditionTrue, Reason: "Ready"},
				{Type: templatesv1.TemplateInstanceProgressing, Status: metav1.ConditionFalse, Reason: "Ready"},
				{Type: templatesv1.TemplateInstanceFailed, Status: metav1.ConditionFalse, Reason: "Ready"}}}
	}
}

// FromSecret makes the instance read its values from Secret name.
func FromSecret(name string) func(*templatesv1.TemplateInstance) {
	return func(ti *templatesv1.TemplateInstance) {
		ti.Spec.ParametersFrom = append(ti.Spec.ParametersFrom, templatesv1.ParametersSource{SecretRef: &templatesv1.SecretReference{Name: name}})
	}
}

// FromConfigMap makes the instance read its values from ConfigMap name.
func FromConfigMap(name string) func(*templatesv1.TemplateInstance) {
	return func(ti *templatesv1.TemplateInstance) {
		ti.Spec.ParametersFrom = append(ti.Spec.ParametersFrom, templatesv1.ParametersSource{ConfigMapRef: &templatesv1.ConfigMapReference{Name: name}})
	}
}

// ValuesSecret is a Secret of namespace demo holding data.
func ValuesSecret(name string, data map[string]string) *unstructured.Unstructured {
	encoded := map[string]interface{}{}
	for k, v := range data {
		encoded[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]interface{}{"namespace": "demo", "name": name}, "data": encoded}}
}

// ValuesConfigMap is a ConfigMap of namespace demo holding data.
func ValuesConfigMap(name string, data map[string]string) *unstructured.Unstructured {
	d := map[string]interface{}{}
	for k, v := range data {
		d[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"namespace": "demo", "name": name}, "data": d}}
}

// GeneratedValues is the Secret that keeps instance name's generated PASSWORD.
func GeneratedValues(name, password string) *unstructured.Unstructured {
	u := ValuesSecret(instance.GeneratedSecretName(name), map[string]string{"PASSWORD": password})
	u.SetLabels(map[string]string{inventory.GeneratedValuesLabel: "true"})
	return u
}
