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

package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/api/meta"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/client"
)

// printRollout writes where t's rollout is, then each instance of t: its policy, the revision
// it runs and whether it is Ready.
func printRollout(w io.Writer, t *templatesv1.Template, instances []templatesv1.TemplateInstance) {
	st := client.RolloutStatus(t)
	current := int64(0)
	if t.Revision != nil {
		current = t.Revision.Number
	}
	switch {
	case t.Rollout == nil:
		fmt.Fprintf(w, "template %s: revision %d; no rollout: Automatic instances move at once\n", t.Name, current)
	case st == nil || st.Revision != current:
		fmt.Fprintf(w, "template %s: revision %d; its rollout has not started yet\n", t.Name, current)
	default:
		undo := ""
		if st.Undo {
			undo = " (undo)"
		}
		fmt.Fprintf(w, "template %s: revision %d%s from %d: %s (%s)\n", t.Name, st.Revision, undo, st.FromRevision, st.Phase, st.Reason)
		fmt.Fprintf(w, "  %s\n", st.Message)
		fmt.Fprintf(w, "  wave %d of %d; %d of %d Automatic instances run revision %d and are Ready; the rollout moved %d\n",
			st.Wave, st.Waves, st.Updated, st.Total, st.Revision, st.MovedCount)
		if len(st.Failed) > 0 {
			fmt.Fprintln(w, "  failed:")
			for _, f := range st.Failed {
				fmt.Fprintf(w, "    %s: %s: %s\n", f.Name, f.Reason, f.Message)
			}
			if more := int(st.FailedCount) - len(st.Failed); more > 0 {
				fmt.Fprintf(w, "    and %d more (kubectl get templateinstances shows each one's conditions)\n", more)
			}
		}
		if st.PlanHash != "" {
			fmt.Fprintf(w, "  plan: %s\n", st.PlanHash)
		}
		if st.StalePlanHash != "" {
			fmt.Fprintf(w, "  plan %s not checked: an earlier rollout or an undo used it (set a new preview's plan to check this one)\n", st.StalePlanHash)
		}
		switch {
		case st.Phase != templatesv1.RolloutPaused:
		case t.Rollout != nil && t.Rollout.Paused:
			fmt.Fprintf(w, "  stencil rollout resume %s goes on (an undo waits for the resume)\n", t.Name)
		case st.Reason == templatesv1.RolloutReasonPlanMismatch:
			fmt.Fprintf(w, "  preview again and set the new plan, or remove %s, to go on; stencil rollout undo %s goes back to revision %d\n",
				templatesv1.AnnotationRolloutPlanHash, t.Name, st.FromRevision)
		default:
			fmt.Fprintf(w, "  stencil rollout resume %s goes on; stencil rollout undo %s goes back to revision %d\n", t.Name, t.Name, st.FromRevision)
		}
	}
	var mine []templatesv1.TemplateInstance
	for _, ti := range instances {
		if ti.Spec.TemplateRef != nil && ti.Spec.TemplateRef.Name == t.Name {
			mine = append(mine, ti)
		}
	}
	if len(mine) == 0 {
		return
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].Name < mine[j].Name })
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "INSTANCE\tPOLICY\tREVISION\tREADY")
	for _, ti := range mine {
		policy := string(ti.Spec.UpdatePolicy)
		switch {
		case ti.Spec.TemplateRef.Revision > 0:
			policy = fmt.Sprintf("pinned to %d", ti.Spec.TemplateRef.Revision)
		case policy == "":
			policy = string(templatesv1.UpdatePolicyAutomatic)
		}
		revision := "-"
		if r := ti.Status.TemplateRevision; r != nil {
			revision = fmt.Sprint(r.Number)
		}
		ready := "Unknown"
		if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady); c != nil {
			ready = string(c.Status)
			if c.Status != "True" && c.Reason != "" {
				ready = c.Reason
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ti.Name, strings.TrimSpace(policy), revision, ready)
	}
	tw.Flush()
}
