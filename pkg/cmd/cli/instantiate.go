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
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	stencilclient "stencil.dev/stencil/pkg/client"
)

// NewInstantiateCommand returns stencil instantiate, which creates a TemplateInstance of a
// stored template.
func NewInstantiateCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := &ProcessOptions{config: config, streams: streams}
	var name string
	var waitReady bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "instantiate TEMPLATE [--name NAME] [-p KEY=VALUE]... [--param-file FILE] [--wait]",
		Short: "Create a TemplateInstance of a stored template",
		Long: "Create a TemplateInstance of the stored template TEMPLATE with the given values. The\n" +
			"server's controller creates its objects as you, keeps them up to date with the template and\n" +
			"deletes them with the instance. --wait waits until every object is ready, and fails as soon\n" +
			"as the instance reports Failed.",
		Example: "  stencil instantiate redis --name shop -p NAME=shop --wait\n  kubectl get templateinstances",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := o.request()
			if err != nil {
				return err
			}
			cs, namespace, err := newClient(config, streams)
			if err != nil {
				return err
			}
			if name == "" {
				name = args[0]
			}
			ti := &templatesv1.TemplateInstance{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: templatesv1.TemplateInstanceSpec{TemplateRef: &templatesv1.TemplateReference{Name: args[0]},
					Parameters: req.Parameters, Labels: req.Labels},
			}
			if len(ti.Spec.Parameters) == 0 {
				ti.Spec.Parameters = nil
			}
			if len(ti.Spec.Labels) == 0 {
				ti.Spec.Labels = nil
			}
			created, err := cs.TemplateInstances(namespace).Create(cmd.Context(), ti, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "templateinstance.templates.stencil.dev/%s created\n", created.Name)
			if !waitReady {
				return nil
			}
			return waitForInstance(cmd.Context(), cs, namespace, created.Name, timeout, streams)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&name, "name", "", "name of the TemplateInstance; the template's name if not given")
	flags.StringArrayVarP(&o.Params, "param", "p", nil, "a parameter value as KEY=VALUE (repeatable)")
	flags.StringVar(&o.ParamFile, "param-file", "", "a file of KEY=VALUE lines, or - for standard input; -p wins over it")
	flags.StringArrayVarP(&o.Labels, "labels", "l", nil, "object labels to add, as key=value,key2=value2 (repeatable)")
	flags.BoolVar(&waitReady, "wait", false, "wait until the instance is Ready, or fail when it reports Failed")
	flags.DurationVar(&timeout, "timeout", 5*time.Minute, "how long --wait waits")
	return cmd
}

// waitForInstance polls the instance until its current generation is Ready (nil) or Failed
// (an error with the condition's message).
func waitForInstance(ctx context.Context, cs stencilclient.Interface, namespace, name string, timeout time.Duration, streams IOStreams) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		ti, err := cs.TemplateInstances(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		current := func(t string) *metav1.Condition {
			c := meta.FindStatusCondition(ti.Status.Conditions, t)
			if c == nil || c.ObservedGeneration != ti.Generation {
				return nil
			}
			return c
		}
		if c := current(templatesv1.TemplateInstanceFailed); c != nil && c.Status == metav1.ConditionTrue {
			return false, fmt.Errorf("templateinstance %s failed: %s: %s", name, c.Reason, c.Message)
		}
		if c := current(templatesv1.TemplateInstanceReady); c != nil {
			if c.Status == metav1.ConditionTrue {
				fmt.Fprintf(streams.Out, "templateinstance.templates.stencil.dev/%s ready: %s\n", name, c.Message)
				return true, nil
			}
			if c.Reason == "NoCluster" {
				return false, fmt.Errorf("templateinstance %s: %s", name, c.Message)
			}
			last = c.Reason + ": " + c.Message
		}
		return false, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("templateinstance %s is not ready after %s: %s", name, timeout, last)
	}
	return err
}
