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
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/util/retry"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/rollout"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

// NewRolloutCommand returns `stencil rollout`: the status of a Template's rollout, and pause,
// resume and undo, each a write of the Template (get and update on it, as kubectl rollout
// needs on a Deployment). The server's controller does the rest.
func NewRolloutCommand(config *genericclioptions.ConfigFlags, streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout (status | pause | resume | undo) TEMPLATE",
		Short: "Follow, pause, resume or undo the rollout of a Template's new revision to its instances",
		Long: "A Template with a rollout (rollout.waves, gate, timeout) moves its Automatic instances to a\n" +
			"new revision wave by wave; a wave that does not turn Ready in time, or whose gate is false,\n" +
			"pauses it (docs/revisions.md). status shows where it is and which instances failed and why;\n" +
			"pause and resume set rollout.paused (resume also resumes an automatic pause); undo writes the\n" +
			"content of the revision before back, which every instance then moves to at once.",
	}
	cmd.AddCommand(rolloutStatusCommand(config, streams), rolloutPauseCommand(config, streams),
		rolloutResumeCommand(config, streams), rolloutUndoCommand(config, streams))
	return cmd
}

func rolloutStatusCommand(config *genericclioptions.ConfigFlags, streams IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status TEMPLATE",
		Short: "Show where a Template's rollout is, and which instances run which revision",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cs, namespace, err := newClient(config, streams)
			if err != nil {
				return err
			}
			t, err := cs.TemplatesV1alpha1().Templates(namespace).Get(cmd.Context(), args[0], metav1.GetOptions{})
			if err != nil {
				return err
			}
			switch output {
			case "":
			case "yaml", "json":
				st := &templatesv1.TemplateStatus{}
				if t.Status != nil {
					st = t.Status
				}
				data, err := json.Marshal(st)
				if err != nil {
					return err
				}
				return printList(streams.Out, data, output)
			default:
				return fmt.Errorf("-o %q: want yaml or json", output)
			}
			// The instances are shown when the caller may list them.
			list, _ := cs.TemplatesV1alpha1().TemplateInstances(namespace).List(cmd.Context(), metav1.ListOptions{})
			var instances []templatesv1.TemplateInstance
			if list != nil {
				instances = list.Items
			}
			printRollout(streams.Out, t, instances)
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "yaml or json: the Template's status as the server has it")
	return cmd
}

func rolloutPauseCommand(config *genericclioptions.ConfigFlags, streams IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "pause TEMPLATE",
		Short: "Stop a Template's rollout where it is (rollout.paused: true)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cs, namespace, err := newClient(config, streams)
			if err != nil {
				return err
			}
			return updateTemplate(cmd.Context(), cs, namespace, args[0], streams, pause)
		},
	}
}

func rolloutResumeCommand(config *genericclioptions.ConfigFlags, streams IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "resume TEMPLATE",
		Short: "Go on with a paused rollout: a pause by rollout.paused, or one a wave made",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cs, namespace, err := newClient(config, streams)
			if err != nil {
				return err
			}
			return updateTemplate(cmd.Context(), cs, namespace, args[0], streams, resume)
		},
	}
}

func rolloutUndoCommand(config *genericclioptions.ConfigFlags, streams IOStreams) *cobra.Command {
	var to int64
	cmd := &cobra.Command{
		Use:   "undo TEMPLATE",
		Short: "Move every instance back to the revision before (or --to-revision N), at once",
		Long: "Writes the content of the revision the rollout started from (or --to-revision N) back into\n" +
			"the Template, as kubectl rollout undo writes a Deployment's old template back: that makes a\n" +
			"new revision with the old content, and you its author. Its rollout moves every Automatic\n" +
			"instance at once, without gate; each is still applied as its requester, with the author\n" +
			"rule (so you must be allowed to create what it holds).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cs, namespace, err := newClient(config, streams)
			if err != nil {
				return err
			}
			return undo(cmd.Context(), cs, namespace, args[0], to, streams)
		},
	}
	cmd.Flags().Int64Var(&to, "to-revision", 0, "the revision to go back to; 0 is the one the last rollout started from")
	return cmd
}

// undo writes revision to (0: the one the rollout started from) of name back.
func undo(ctx context.Context, cs clientset.Interface, namespace, name string, to int64, streams IOStreams) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		t, err := cs.TemplatesV1alpha1().Templates(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		target := to
		if target == 0 {
			if st := rolloutStatus(t); st != nil && st.FromRevision > 0 {
				target = st.FromRevision
			} else if t.Revision != nil && t.Revision.Number > 1 {
				target = t.Revision.Number - 1
			}
		}
		if target <= 0 {
			return fmt.Errorf("template %s has no revision before this one to go back to", name)
		}
		rev, err := cs.TemplatesV1alpha1().TemplateRevisions(namespace).Get(ctx, templatesv1.RevisionName(name, target), metav1.GetOptions{})
		// A revision of that name that the Template does not own is an earlier Template's.
		if apierrors.IsNotFound(err) || (err == nil && (rev.Template != name || !templatesv1.RevisionOwnedBy(rev, t.UID))) {
			return fmt.Errorf("revision %d of template %s is not kept any more (see kubectl get templaterevisions --field-selector template=%s)", target, name, name)
		}
		if err != nil {
			return err
		}
		if t.Revision != nil && t.Revision.Hash == rev.Hash {
			fmt.Fprintf(streams.Out, "template %s: already holds the content of revision %d\n", name, target)
			return nil
		}
		var back templatesv1.Template
		if err := json.Unmarshal(rev.Content.Raw, &back); err != nil {
			return fmt.Errorf("reading revision %d: %v", target, err)
		}
		back.TypeMeta, back.ObjectMeta, back.Rollout = t.TypeMeta, t.ObjectMeta, t.Rollout
		if back.Annotations == nil {
			back.Annotations = map[string]string{}
		}
		back.Annotations[templatesv1.AnnotationRolloutUndo] = rev.Hash
		stored, err := cs.TemplatesV1alpha1().Templates(namespace).Update(ctx, &back, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		now := int64(0)
		if stored.Revision != nil {
			now = stored.Revision.Number
		}
		fmt.Fprintf(streams.Out, "template %s: content of revision %d written back as revision %d; every instance moves to it\n", name, target, now)
		return nil
	})
}

// pause sets rollout.paused.
func pause(t *templatesv1.Template) (string, error) {
	if t.Rollout == nil {
		return "", fmt.Errorf("template %s has no rollout: its Automatic instances move at once; give it rollout.waves first", t.Name)
	}
	if t.Rollout.Paused {
		return "", nil
	}
	t.Rollout.Paused = true
	return "template " + t.Name + ": rollout paused", nil
}

// resume clears rollout.paused and, when a wave paused the rollout, names that pause in the
// resume annotation: a resume never resumes a later pause.
func resume(t *templatesv1.Template) (string, error) {
	if t.Rollout == nil {
		return "", fmt.Errorf("template %s has no rollout", t.Name)
	}
	changed := t.Rollout.Paused
	t.Rollout.Paused = false
	if st := rolloutStatus(t); st != nil && st.Phase == templatesv1.RolloutPaused && st.Reason != rollout.ReasonPausedByUser {
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		changed = changed || t.Annotations[templatesv1.AnnotationRolloutResume] != rollout.ResumeToken(st)
		t.Annotations[templatesv1.AnnotationRolloutResume] = rollout.ResumeToken(st)
	}
	if !changed {
		return "", nil
	}
	return "template " + t.Name + ": rollout resumed", nil
}

// updateTemplate reads the Template, lets change edit it, and writes it (get and update: the
// right pause and resume need is the right to update the Template), retrying on conflicts.
// change returns what to print, "" when nothing needs writing.
func updateTemplate(ctx context.Context, cs clientset.Interface, namespace, name string, streams IOStreams,
	change func(*templatesv1.Template) (string, error)) error {
	var said string
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		t, err := cs.TemplatesV1alpha1().Templates(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if said, err = change(t); err != nil || said == "" {
			return err
		}
		_, err = cs.TemplatesV1alpha1().Templates(namespace).Update(ctx, t, metav1.UpdateOptions{})
		return err
	})
	if err == nil {
		if said == "" {
			said = "template " + name + ": nothing to change"
		}
		fmt.Fprintln(streams.Out, said)
	}
	return err
}

func rolloutStatus(t *templatesv1.Template) *templatesv1.RolloutStatus {
	if t.Status == nil {
		return nil
	}
	return t.Status.Rollout
}
