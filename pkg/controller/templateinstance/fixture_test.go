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
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/controller/instance/instancetest"
	"stencil.dev/stencil/pkg/controller/publish"
	"stencil.dev/stencil/pkg/generated/clientset/versioned/fake"
	informers "stencil.dev/stencil/pkg/generated/informers/externalversions"
)

// The tests build the controller as sample-controller's do: client-go's fake clients hold the
// objects (f.objects in this server's API, f.live in the target cluster), the instances are put
// into the informer's cache, one sync runs, and the tests read the actions the controller took
// and the status it wrote back from the fakes. Rendering is the server's own renderrest.Adapter.
// The fakes and the objects the tests are written with are instancetest's, which the tests of
// the pass library and of the preview share.

var (
	testMapper      = instancetest.Mapper
	refuse          = instancetest.Refuse
	newInstance     = instancetest.NewInstance
	newTemplate     = instancetest.NewTemplate
	member          = instancetest.Member
	terminating     = instancetest.Terminating
	ref             = instancetest.Ref
	failWith        = instancetest.FailWith
	onRevision      = instancetest.OnRevision
	fromSecret      = instancetest.FromSecret
	fromConfigMap   = instancetest.FromConfigMap
	valuesSecret    = instancetest.ValuesSecret
	valuesConfigMap = instancetest.ValuesConfigMap
	generatedValues = instancetest.GeneratedValues
	testHashKey     = instancetest.HashKey
)

const configMap = instancetest.ConfigMap

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

	*instancetest.Fakes
	instances *fake.Clientset
	target    *dynamicfake.FakeDynamicClient
	kube      *kubefake.Clientset
	authz     *instancetest.Rules
	appliers  *instancetest.SameApplier
	factory   informers.SharedInformerFactory
	c         *Controller
	// term is the controller's term over factory.
	term *term
	// events are the Events the controller recorded, as "Type Reason Message".
	events *record.FakeRecorder
}

// recorded takes the Events recorded so far.
func (f *fixture) recorded() []string {
	var out []string
	for {
		select {
		case e := <-f.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// build makes the fakes and the controller; the reactors a test adds go on f.target or f.kube
// after it.
func (f *fixture) build() *fixture {
	f.t.Helper()
	f.Fakes = instancetest.NewFakes(f.objects, f.live, f.deny)
	f.events = record.NewFakeRecorder(1000)
	f.instances, f.target, f.kube, f.authz, f.appliers = f.Fakes.Instances, f.Fakes.Target, f.Fakes.Kube, f.Fakes.Authz, f.Fakes.Appliers
	f.factory = informers.NewSharedInformerFactory(f.instances, 0)
	c, err := NewController(Config{
		Instances: f.instances, Informers: func() informers.SharedInformerFactory { return f.factory },
		Templates: f.Templates, Renderer: f.Renderer,
		Appliers: f.appliers, Mapper: testMapper(), Authorizer: f.Authorizer(), SelfReview: f.selfReview, Workers: 1,
		HashKey: testHashKey, Recorder: f.events,
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
	if f.term, err = c.watch(f.factory); err != nil {
		f.t.Fatal(err)
	}
	f.c = c
	f.rebuild()
	return f
}

// rebuild makes the controller's pass library again over f.c.cfg, after a test changed it.
func (f *fixture) rebuild() {
	f.t.Helper()
	pass, err := newPlanner(f.c.cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.c.pass = pass
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
	return f.c.sync(context.Background(), f.term, "demo/"+name)
}

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

// targetActions describe what the controller did in the target cluster.
func (f *fixture) targetActions() []string { return f.TargetActions() }

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

func lastCondition(ti *templatesv1.TemplateInstance, conditionType string) metav1.Condition {
	if c := meta.FindStatusCondition(ti.Status.Conditions, conditionType); c != nil {
		return *c
	}
	return metav1.Condition{}
}

func joined(s []string) string { return strings.Join(s, "\n") }
