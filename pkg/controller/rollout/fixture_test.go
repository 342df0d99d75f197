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

package rollout

import (
	"context"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clienttesting "k8s.io/client-go/testing"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/generated/clientset/versioned/fake"
)

// fixture is a Template, its instances and a clock, over client-go's fake clientset: the
// instances' passes are played by the test (move), as the instance controller would.
type fixture struct {
	t         *testing.T
	client    *fake.Clientset
	r         *Reconciler
	now       time.Time
	instances []*templatesv1.TemplateInstance
	planHash  string
	planCalls int
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newFixture(t *testing.T, rollout *templatesv1.Rollout, names ...string) *fixture {
	f := &fixture{t: t, now: epoch.Add(time.Hour)}
	tpl := &templatesv1.Template{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "ns", UID: "app-uid", Annotations: map[string]string{}},
		Revision: &templatesv1.RevisionStamp{Number: 1, Hash: "sha256:one"}, Rollout: rollout}
	tpl.ResourceVersion = "1"
	f.client = fake.NewSimpleClientset(tpl)
	// The fake tracker keeps no resourceVersions: each write of the Template gets a new one,
	// as etcd gives it.
	var rv int
	f.client.PrependReactor("update", "templates", func(action clienttesting.Action) (bool, runtime.Object, error) {
		rv++
		action.(clienttesting.UpdateAction).GetObject().(*templatesv1.Template).ResourceVersion = "1" + strconv.Itoa(rv)
		return false, nil, nil
	})
	f.r = New(Config{Client: f.client, Now: func() time.Time { return f.now },
		PlanHash: func(context.Context, *templatesv1.Template, int64) (string, error) {
			f.planCalls++
			return f.planHash, nil
		}})
	for i, name := range names {
		ti := &templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Generation: 1,
			CreationTimestamp: metav1.NewTime(epoch.Add(time.Duration(i) * time.Minute))},
			Spec: templatesv1.TemplateInstanceSpec{TemplateRef: &templatesv1.TemplateReference{Name: "app"}}}
		setRunning(ti, 1, true)
		f.instances = append(f.instances, ti)
		if err := f.client.Tracker().Add(ti.DeepCopy()); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// setRunning makes ti run revision, Ready or not, as a pass would leave it.
func setRunning(ti *templatesv1.TemplateInstance, revision int64, ready bool) {
	ti.Status.ObservedGeneration = ti.Generation
	ti.Status.TemplateRevision = &templatesv1.AppliedRevision{Number: revision, Generation: ti.Generation}
	status, reason := metav1.ConditionTrue, "Ready"
	if !ready {
		status, reason = metav1.ConditionFalse, "NotReady"
	}
	ti.Status.Conditions = []metav1.Condition{{Type: templatesv1.TemplateInstanceReady, Status: status, Reason: reason, Message: "objects: " + reason}}
}

func (f *fixture) instance(name string) *templatesv1.TemplateInstance {
	for _, ti := range f.instances {
		if ti.Name == name {
			return ti
		}
	}
	f.t.Fatalf("no instance %s", name)
	return nil
}

func (f *fixture) template() *templatesv1.Template {
	f.t.Helper()
	t, err := f.client.TemplatesV1alpha1().Templates("ns").Get(context.Background(), "app", metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return t
}

// edit stores a new revision of the content, as a write of the Template does.
func (f *fixture) edit(revision int64, hash string, annotations map[string]string) {
	f.t.Helper()
	t := f.template()
	t.Revision = &templatesv1.RevisionStamp{Number: revision, Hash: hash}
	for k, v := range annotations {
		t.Annotations[k] = v
	}
	if _, err := f.client.TemplatesV1alpha1().Templates("ns").Update(context.Background(), t, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// update changes the Template's rollout or annotations, as `stencil rollout` does.
func (f *fixture) update(change func(*templatesv1.Template)) {
	f.t.Helper()
	t := f.template()
	change(t)
	if _, err := f.client.TemplatesV1alpha1().Templates("ns").Update(context.Background(), t, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// sync takes one step and returns the rollout's status. The marks the step wrote on the
// instances reach the test's instances, as the informer would bring them.
func (f *fixture) sync() (*templatesv1.RolloutStatus, time.Duration) {
	f.t.Helper()
	after, err := f.r.Reconcile(context.Background(), f.template(), f.instances)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, ti := range f.instances {
		stored, err := f.client.TemplatesV1alpha1().TemplateInstances("ns").Get(context.Background(), ti.Name, metav1.GetOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		ti.Annotations = stored.Annotations
	}
	t := f.template()
	if t.Status == nil {
		return nil, after
	}
	return t.Status.Rollout, after
}

// passes plays the instance controller: every instance the rollout moved runs its revision,
// Ready unless named in stuck.
func (f *fixture) passes(stuck ...string) {
	t := f.template()
	for _, ti := range f.instances {
		if !Eligible(ti, "app") || !movedBy(t, ti) {
			continue
		}
		ready := true
		for _, s := range stuck {
			ready = ready && s != ti.Name
		}
		setRunning(ti, t.Revision.Number, ready)
	}
}

// movedBy says whether the rollout lets ti run the Template's revision, as TargetRevision asks.
func movedBy(t *templatesv1.Template, ti *templatesv1.TemplateInstance) bool {
	st := t.Status.Rollout
	if st == nil || st.Revision != t.Revision.Number {
		return false
	}
	return st.Phase == templatesv1.RolloutComplete || MovedIn(ti, st.Revision, t.UID) > 0
}

// moved are the names of the instances the rollout of revision marked as moved, in order.
func (f *fixture) moved(revision int64) []string {
	var out []string
	for _, ti := range f.instances {
		if MovedIn(ti, revision, "app-uid") > 0 {
			out = append(out, ti.Name)
		}
	}
	return out
}

func waves(w ...intstr.IntOrString) *templatesv1.Rollout {
	return &templatesv1.Rollout{Waves: w, Timeout: &metav1.Duration{Duration: time.Minute}}
}

func revisions(f *fixture) map[string]int64 {
	out := map[string]int64{}
	for _, ti := range f.instances {
		out[ti.Name] = running(ti)
	}
	return out
}
