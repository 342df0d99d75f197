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
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/controller/publish"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/generated/clientset/versioned/fake"
	informers "stencil.dev/stencil/pkg/generated/informers/externalversions"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

// The tests build the controller as sample-controller's do: client-go's fake clients hold the
// objects (f.objects in this server's API, f.live in the target cluster), the instances are put
// into the informer's cache, one sync runs, and the tests read the actions the controller took
// and the status it wrote back from the fakes. Rendering is the server's own renderrest.Adapter.

// testMapper knows the kinds the tests render, as the target's discovery would.
func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Service"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot)
	return m
}

// trackerTemplates reads the Templates of the fake clientset's tracker (recording no action),
// converted to the internal type with the API's scheme, as storage decodes them. It is also the
// Templates' rest.Getter of the renderer, for imports.
type trackerTemplates struct {
	tracker k8stesting.ObjectTracker
	scheme  *runtime.Scheme
}

func (r trackerTemplates) Template(_ context.Context, namespace, name string) (*templates.Template, error) {
	obj, err := r.tracker.Get(templatesv1.SchemeGroupVersion.WithResource("templates"), namespace, name)
	if err != nil {
		return nil, err
	}
	out := &templates.Template{}
	return out, r.scheme.Convert(obj.(*templatesv1.Template).DeepCopy(), out, nil)
}

// Revision reads a TemplateRevision of the tracker as StorageTemplates reads one of storage.
func (r trackerTemplates) Revision(_ context.Context, t *templates.Template, number int64) (*templates.Template, error) {
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

func (r trackerTemplates) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	namespace, _ := genericapirequest.NamespaceFrom(ctx)
	return r.Template(ctx, namespace, name)
}

// rules is the tests' authorizer: it allows everything deny does not refuse, and records
// every review as "user verb resource namespace/name".
type rules struct {
	deny  func(authorizer.Attributes) bool
	mu    sync.Mutex
	asked []string
}

func (r *rules) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	resource := a.GetResource()
	if a.GetSubresource() != "" {
		resource += "/" + a.GetSubresource()
	}
	r.mu.Lock()
	r.asked = append(r.asked, fmt.Sprintf("%s %s %s %s/%s", a.GetUser().GetName(), a.GetVerb(), resource, a.GetNamespace(), a.GetName()))
	r.mu.Unlock()
	if r.deny != nil && r.deny(a) {
		return authorizer.DecisionNoOpinion, "RBAC: no binding", nil
	}
	return authorizer.DecisionAllow, "", nil
}

// refuse denies user the verb on resource (with its subresource as resource/sub).
func refuse(user, verb, resource string) func(authorizer.Attributes) bool {
	return func(a authorizer.Attributes) bool {
		r := a.GetResource()
		if a.GetSubresource() != "" {
			r += "/" + a.GetSubresource()
		}
		return a.GetUser().GetName() == user && a.GetVerb() == verb && r == resource
	}
}

// sameApplier hands every requester the one Applier over the fake target, recording whom.
type sameApplier struct {
	applier Applier
	mu      sync.Mutex
	users   []string
}

func (s *sameApplier) For(r *templatesv1.TemplateInstanceRequester) (Applier, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users = append(s.users, r.Username)
	return s.applier, nil
}

// newTarget is a fake target cluster whose server-side apply creates what does not exist (the
// plain tracker only patches), keeps the uid of what does, gives each write a new
// resourceVersion, and stores nothing on a dry-run.
func newTarget(objects ...runtime.Object) *dynamicfake.FakeDynamicClient {
	// The list kinds of the objects given, as NewSimpleDynamicClient registers them, and of
	// Flux's Kustomizations, which published instances list.
	scheme := runtime.NewScheme()
	for _, obj := range objects {
		gvk := obj.GetObjectKind().GroupVersionKind()
		scheme.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
		scheme.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &unstructured.UnstructuredList{})
	}
	d := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme,
		map[schema.GroupVersionResource]string{publish.Kustomizations: "KustomizationList", secrets: "SecretList"}, objects...)
	var uids, versions atomic.Int64
	d.PrependReactor("patch", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		patch := action.(k8stesting.PatchActionImpl)
		if patch.GetPatchType() != types.ApplyPatchType {
			return false, nil, nil
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

// fixture is one controller over fake clients.
type fixture struct {
	t *testing.T
	// objects are the TemplateInstances and Templates of this server's API; live are the
	// objects of the target cluster.
	objects, live []runtime.Object
	// deny refuses reviews of the server's authorizer; selfReview checks requesters with
	// SelfSubjectAccessReviews of kube instead.
	deny       func(authorizer.Attributes) bool
	selfReview bool
	// publishing, when set, lets the controller publish renders with these limits.
	publishing *artifact.Limits

	instances *fake.Clientset
	target    *dynamicfake.FakeDynamicClient
	kube      *kubefake.Clientset
	authz     *rules
	appliers  *sameApplier
	factory   informers.SharedInformerFactory
	c         *Controller
}

// build makes the fakes and the controller; the reactors a test adds go on f.target or f.kube
// after it.
func (f *fixture) build() *fixture {
	f.t.Helper()
	f.instances = fake.NewClientset(f.objects...)
	f.target = newTarget(f.live...)
	f.kube = kubefake.NewClientset()
	f.authz = &rules{deny: f.deny}
	f.appliers = &sameApplier{applier: &clientApplier{dynamic: f.target, kube: f.kube}}
	scheme := runtime.NewScheme()
	install.Install(scheme)
	reader := trackerTemplates{tracker: f.instances.Tracker(), scheme: scheme}
	f.factory = informers.NewSharedInformerFactory(f.instances, 0)
	c, err := NewController(Config{
		Instances: f.instances, Informers: func() informers.SharedInformerFactory { return f.factory },
		Templates: reader, Renderer: renderrest.NewAdapter(renderrest.Sources{Templates: reader}),
		Appliers: f.appliers, Mapper: testMapper(), Authorizer: authorizer.AuthorizerFunc(f.authz.Authorize), SelfReview: f.selfReview, Workers: 1,
		HashKey: testHashKey,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	if f.publishing != nil {
		c.cfg.Publishing = &Publishing{Publisher: &publish.Publisher{URL: "http://artifacts.test"}, Limits: *f.publishing,
			Clients: func(*templatesv1.TemplateInstanceRequester) (publish.Client, error) {
				return publish.NewClient(f.target), nil
			}}
	}
	if _, err := c.watch(f.factory); err != nil {
		f.t.Fatal(err)
	}
	f.c = c
	return f
}

// sync puts the instance as stored into the informer's cache, as a watch event would, and
// reconciles it once.
func (f *fixture) sync(name string) (time.Duration, error) {
	f.t.Helper()
	indexer := f.factory.Templates().V1alpha1().TemplateInstances().Informer().GetIndexer()
	if ti, err := f.instances.Tracker().Get(instancesResource, "demo", name); err == nil {
		if err := indexer.Update(ti); err != nil {
			f.t.Fatal(err)
		}
	} else if apierrors.IsNotFound(err) {
		if old, ok, _ := indexer.GetByKey("demo/" + name); ok {
			_ = indexer.Delete(old)
		}
	} else {
		f.t.Fatal(err)
	}
	return f.c.sync(context.Background(), "demo/"+name)
}

// testHashKey keys the tests' rendered hashes.
var testHashKey = []byte("the tests' hash key, 32 bytes...")

var instancesResource = templatesv1.SchemeGroupVersion.WithResource("templateinstances")

// instance reads the instance as stored.
func (f *fixture) instance(name string) *templatesv1.TemplateInstance {
	f.t.Helper()
	obj, err := f.instances.Tracker().Get(instancesResource, "demo", name)
	if err != nil {
		f.t.Fatal(err)
	}
	return obj.(*templatesv1.TemplateInstance)
}

// statusReasons are the reasons of the Ready condition of every status the controller wrote,
// in order.
func (f *fixture) statusReasons() []string {
	var reasons []string
	for _, a := range f.instances.Actions() {
		if a.GetVerb() == "update" && a.GetSubresource() == "status" {
			ti := a.(k8stesting.UpdateAction).GetObject().(*templatesv1.TemplateInstance)
			reasons = append(reasons, meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady).Reason)
		}
	}
	return reasons
}

// targetActions describe what the controller did in the target cluster, as "verb
// resource namespace/name", a dry-run apply as "dry-run".
func (f *fixture) targetActions() []string {
	var out []string
	for _, a := range f.target.Actions() {
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

// liveObject reads an object of the target cluster, nil when it does not exist.
func (f *fixture) liveObject(resource, namespace, name string) *unstructured.Unstructured {
	f.t.Helper()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: resource}
	if resource == "deployments" {
		gvr.Group = "apps"
	}
	obj, err := f.target.Tracker().Get(gvr, namespace, name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return obj.(*unstructured.Unstructured)
}

// newInstance is an instance of Template app in namespace demo that alice wrote, its
// finalizer added by an earlier pass; edits change it.
func newInstance(name string, edits ...func(*templatesv1.TemplateInstance)) *templatesv1.TemplateInstance {
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

// newTemplate is a Template of namespace demo that alice wrote, of the objects given as JSON.
func newTemplate(name string, objects ...string) *templatesv1.Template {
	t := &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID("t-" + name), ResourceVersion: "7"},
		Author:     &templatesv1.TemplateAuthor{Username: "alice", Groups: []string{"system:authenticated"}},
	}
	for _, o := range objects {
		t.Objects = append(t.Objects, runtime.RawExtension{Raw: []byte(o)})
	}
	return t
}

const configMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"k":"v"}}`

// member is an object of instance name's set in the target cluster, as an earlier pass left it.
func member(kind, name, uid string, edits ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": kind,
		"metadata": map[string]interface{}{"namespace": "demo", "name": name, "uid": uid}}}
	inventory.Label(u, inventory.ApplySetID("demo", "shop"))
	for _, edit := range edits {
		edit(u)
	}
	return u
}

// terminating marks an object deleted and held by a finalizer.
func terminating(u *unstructured.Unstructured) {
	now := metav1.Now()
	u.SetDeletionTimestamp(&now)
	u.SetFinalizers([]string{"example.com/hold"})
}

// ref is the inventory entry of an object of namespace demo.
func ref(kind, name, uid string) templatesv1.TemplateInstanceObject {
	return templatesv1.TemplateInstanceObject{APIVersion: "v1", Kind: kind, Namespace: "demo", Name: name, UID: types.UID(uid), Ready: true}
}

// failWith makes the target answer err to verb on resource; dryRun picks which applies.
func failWith(d *dynamicfake.FakeDynamicClient, verb, resource string, dryRun bool, err error) {
	d.PrependReactor(verb, resource, func(action k8stesting.Action) (bool, runtime.Object, error) {
		if p, ok := action.(k8stesting.PatchActionImpl); ok && (len(p.PatchOptions.DryRun) > 0) != dryRun {
			return false, nil, nil
		}
		return true, nil, err
	})
}

func lastCondition(ti *templatesv1.TemplateInstance, conditionType string) metav1.Condition {
	if c := meta.FindStatusCondition(ti.Status.Conditions, conditionType); c != nil {
		return *c
	}
	return metav1.Condition{}
}

func joined(s []string) string { return strings.Join(s, "\n") }
