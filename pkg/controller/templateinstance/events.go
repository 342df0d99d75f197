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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/generated/clientset/versioned/scheme"
)

// As sample-controller's and kro's controllers do, the controller reports what happens to an
// instance as Events of it (kubectl describe templateinstance shows them, kubectl events
// lists them): each change of its Ready condition, Normal while it progresses (Applying,
// Ready, NotReady, Pruning, Deleting) and Warning for a failure, with the condition's reason
// and message (which never quote a secret value: the pass scrubs them). A rollout's steps are
// Events of its Template (pkg/controller/rollout). Events are written by the server's own
// identity, through the hosting cluster's Events API; nothing else depends on them.

// EventSource is the component the controller's Events name.
const EventSource = "stencil-templateinstance-controller"

// NewRecorder returns a recorder of Events written to kube's Events API, and the broadcaster
// to shut down when the controller stops.
func NewRecorder(kube kubernetes.Interface) (record.EventRecorder, record.EventBroadcaster) {
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	return broadcaster.NewRecorder(eventScheme(), corev1.EventSource{Component: EventSource}), broadcaster
}

// eventScheme knows the kinds Events are about: TemplateInstances and Templates.
func eventScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		panic(err) // the generated scheme registers its own types
	}
	return s
}

// passEvents is what one pass reported of an instance's Ready condition so far: its Events
// say each change once.
type passEvents struct {
	ready metav1.Condition
}

type passEventsKey struct{}

// withPassEvents starts a pass over ti: Events are about changes from its conditions.
func withPassEvents(ctx context.Context, ti *templatesv1.TemplateInstance) context.Context {
	p := &passEvents{}
	if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady); c != nil {
		p.ready = *c
	}
	return context.WithValue(ctx, passEventsKey{}, p)
}

// recordStatus emits the Event of a status just written, when its Ready condition changed
// since the pass started or last wrote it.
func (c *Controller) recordStatus(ctx context.Context, ti *templatesv1.TemplateInstance) {
	p, _ := ctx.Value(passEventsKey{}).(*passEvents)
	ready := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady)
	if c.cfg.Recorder == nil || p == nil || ready == nil {
		return
	}
	if ready.Status == p.ready.Status && ready.Reason == p.ready.Reason && ready.Message == p.ready.Message {
		return
	}
	p.ready = *ready
	eventType := corev1.EventTypeNormal
	if meta.IsStatusConditionTrue(ti.Status.Conditions, templatesv1.TemplateInstanceFailed) {
		eventType = corev1.EventTypeWarning
	}
	c.cfg.Recorder.Event(ti, eventType, ready.Reason, ready.Message)
}
