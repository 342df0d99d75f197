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
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// Eligible says whether a rollout moves the instance: it references the Template, pins no
// revision, is not Manual, is not being deleted and was not created without a cluster (held
// until someone consents, it runs nothing: a wave would wait its whole timeout for it). Pinned,
// Manual and held instances are never moved by a rollout, nor counted in its waves.
func Eligible(ti *templatesv1.TemplateInstance, template string) bool {
	ref := ti.Spec.TemplateRef
	return ref != nil && ref.Name == template && ref.Revision == 0 && ti.DeletionTimestamp == nil &&
		ti.Spec.UpdatePolicy != templatesv1.UpdatePolicyManual && !templatesv1.CreatedWithoutCluster(ti)
}

// running is the revision the instance last applied; 0 when it applied none.
func running(ti *templatesv1.TemplateInstance) int64 {
	if r := ti.Status.TemplateRevision; r != nil {
		return r.Number
	}
	return 0
}

// ready says the instance's Ready condition is True for its current spec.
func ready(ti *templatesv1.TemplateInstance) bool {
	return ti.Status.ObservedGeneration == ti.Generation && meta.IsStatusConditionTrue(ti.Status.Conditions, templatesv1.TemplateInstanceReady)
}

// waveSizes are the cumulative counts of instances moved once each wave is done, for total
// instances: counts as written (at most total), percentages of total rounded up, and total
// after the last one. Equal neighbours are merged: a wave that would move nobody is none.
func waveSizes(waves []intstr.IntOrString, total int) []int {
	var out []int
	add := func(n int) {
		n = min(n, total)
		if len(out) == 0 || n > out[len(out)-1] {
			out = append(out, n)
		}
	}
	for _, w := range waves {
		if w.Type == intstr.Int {
			add(int(w.IntVal))
			continue
		}
		p, _ := strconv.Atoi(strings.TrimSuffix(w.StrVal, "%"))
		add((p*total + 99) / 100)
	}
	add(total)
	if len(out) == 0 {
		out = []int{0}
	}
	return out
}

// order sorts the instances a wave picks from as kro's propagation proposal does
// (kubernetes-sigs/kro#1259): Ready ones first (a broken instance tells nothing about the new
// revision), then the oldest, then by name.
func order(instances []*templatesv1.TemplateInstance) {
	sort.SliceStable(instances, func(i, j int) bool {
		a, b := instances[i], instances[j]
		if ra, rb := ready(a), ready(b); ra != rb {
			return ra
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
}

// verdict says whether an instance of a wave is done (runs the revision and is Ready) and,
// if not, why, in the words of its conditions.
func verdict(ti *templatesv1.TemplateInstance, revision int64) (done bool, reason, message string) {
	if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed); c != nil && c.Status == metav1.ConditionTrue {
		return false, c.Reason, c.Message
	}
	if running(ti) != revision {
		return false, "NotMoved", "still runs revision " + strconv.FormatInt(running(ti), 10) + ": its pass to revision " +
			strconv.FormatInt(revision, 10) + " has not finished"
	}
	if ready(ti) {
		return true, "", ""
	}
	if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady); c != nil {
		return false, c.Reason, c.Message
	}
	return false, "NotReady", "reports no Ready condition yet"
}
