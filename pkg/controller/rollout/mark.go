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
	"encoding/json"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// markers is how many instances are marked at once.
const markers = 16

// unseenRetry is how soon a wave is looked at again while the instances' cache does not show
// all its marks yet.
const unseenRetry = 500 * time.Millisecond

// markedWave is a wave marked whose marks the instances' cache may not show yet.
type markedWave struct {
	revision int64
	wave     int32
	names    map[string]bool
}

// unseen says whether some instance the Reconciler marked for the wave under way is in the
// cache without its mark yet: a cache that lags behind the marks would make the wave look empty
// (so done) and its instances candidates of the next one. An instance gone from instances
// (deleted, pinned or made Manual since) is not waited for.
func (r *Reconciler) unseen(t *templatesv1.Template, st *templatesv1.RolloutStatus, instances []*templatesv1.TemplateInstance) bool {
	key := t.Namespace + "/" + t.Name
	v, ok := r.marked.Load(key)
	if !ok {
		return false
	}
	m := v.(*markedWave)
	if m.revision != st.Revision || m.wave != st.Wave {
		r.marked.Delete(key)
		return false
	}
	for _, ti := range instances {
		if m.names[ti.Name] && MovedIn(ti, st.Revision, t.UID) != st.Wave {
			return true
		}
	}
	r.marked.Delete(key)
	return false
}

// fresh checks that t is the Template as stored: the Templates' cache may lag behind the
// status this Reconciler wrote last, and a step from an older status would mark the instances
// of a wave already started (the write of its status would then conflict, but the marks
// would be written). A Template changed since is a conflict, looked at again soon.
func (r *Reconciler) fresh(ctx context.Context, t *templatesv1.Template) error {
	stored, err := r.cfg.Client.TemplatesV1alpha1().Templates(t.Namespace).Get(ctx, t.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if stored.ResourceVersion != t.ResourceVersion {
		return apierrors.NewConflict(templatesv1.Resource("templates"), t.Name, fmt.Errorf("the cached Template is older than the stored one"))
	}
	return nil
}

// mark records on each instance of a wave that the wave of the rollout of revision moved it
// (AnnotationRolloutMoved), before the status says the wave started: the instances, not the
// Template's status, hold who moved, so the status stays small and Holds stays a read of one
// annotation. A merge patch of the metadata changes neither the spec nor the requester. An
// instance deleted meanwhile needs no mark.
func (r *Reconciler) mark(ctx context.Context, t *templatesv1.Template, revision int64, wave int32, instances []*templatesv1.TemplateInstance) error {
	if err := r.fresh(ctx, t); err != nil {
		return err
	}
	names := make(map[string]bool, len(instances))
	for _, ti := range instances {
		names[ti.Name] = true
	}
	r.marked.Store(t.Namespace+"/"+t.Name, &markedWave{revision: revision, wave: wave, names: names})
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		templatesv1.AnnotationRolloutMoved: movedValue(revision, wave, t.UID)}}})
	if err != nil {
		return err
	}
	var (
		lock sync.Mutex
		errs []error
		work sync.WaitGroup
	)
	slots := make(chan struct{}, markers)
	for _, ti := range instances {
		slots <- struct{}{}
		work.Go(func() {
			defer func() { <-slots }()
			_, err := r.cfg.Client.TemplatesV1alpha1().TemplateInstances(ti.Namespace).Patch(ctx, ti.Name, types.MergePatchType, patch,
				metav1.PatchOptions{FieldManager: fieldManager})
			if err != nil && !apierrors.IsNotFound(err) {
				lock.Lock()
				errs = append(errs, err)
				lock.Unlock()
			}
		})
	}
	work.Wait()
	return utilerrors.NewAggregate(errs)
}

// fieldManager is the rollout's name in the instances' managed fields.
const fieldManager = "stencil-rollout"
