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
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/client"
)

// NewRolloutCommand returns `stencil rollout`: the status of a Template's rollout, and pause,
// resume and undo, each a write of the Template (get and update on it, as kubectl rollout
// needs on a Deployment). The server's controller does the rest.
func NewRolloutCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
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

func rolloutStatusCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
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
			t, err := cs.Templates(namespace).Get(cmd.Context(), args[0], metav1.GetOptions{})
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
			list, _ := cs.TemplateInstances(namespace).List(cmd.Context(), metav1.ListOptions{})
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

func rolloutPauseCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "pause TEMPLATE",
		Short: "Stop a Template's rollout where it is (rollout.paused: true)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cs, namespace, err := newClient(config, streams)
			if err != nil {
				return err
			}
			return say(streams)(client.PauseRollout(cmd.Context(), cs, namespace, args[0]))
		},
	}
}

func rolloutResumeCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "resume TEMPLATE",
		Short: "Go on with a paused rollout: a pause by rollout.paused, or one a wave made",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cs, namespace, err := newClient(config, streams)
			if err != nil {
				return err
			}
			return say(streams)(client.ResumeRollout(cmd.Context(), cs, namespace, args[0]))
		},
	}
}

func rolloutUndoCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	var to int64
	cmd := &cobra.Command{
		Use:   "undo TEMPLATE",
		Short: "Move every instance back to the revision before (or --to-revision N), at once",
		Long: "Writes the content of the revision the rollout started from (or --to-revision N) back into\n" +
			"the Template, as kubectl rollout undo writes a Deployment's old template back: that makes a\n" +
			"new revision with the old content, and you its author. Its rollout moves every Automatic\n" +
			"instance at once, without gate; each is still applied as its requester, with the author\n" +
			"rule (so you must be allowed to create what it holds). A paused rollout (rollout.paused) is\n" +
			"not undone, as kubectl does not undo a paused Deployment: resume it first. The undo drops\n" +
			"the Template's plan-hash and resume annotations, which were for the content it replaces.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cs, namespace, err := newClient(config, streams)
			if err != nil {
				return err
			}
			return say(streams)(client.UndoRollout(cmd.Context(), cs, namespace, args[0], to))
		},
	}
	cmd.Flags().Int64Var(&to, "to-revision", 0, "the revision to go back to; 0 is the one the last rollout started from")
	return cmd
}

// say prints what a rollout write did, or returns its error.
func say(streams IOStreams) func(string, error) error {
	return func(said string, err error) error {
		if err == nil {
			fmt.Fprintln(streams.Out, said)
		}
		return err
	}
}
