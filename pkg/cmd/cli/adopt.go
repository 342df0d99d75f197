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
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	stencilclient "stencil.dev/stencil/pkg/client"
)

// adoptOptions are the flags of stencil adopt.
type adoptOptions struct {
	process            ProcessOptions
	name, template     string
	file               string
	selector           string
	managers           []string
	dryRun             bool
	retainUntilUpgrade bool
	leaveUnrendered    bool
	waitDone           bool
	timeout            time.Duration
	output             string
}

// NewAdoptCommand returns stencil adopt, which moves what a Helm release, a kubectl ApplySet
// or a label selector manages under a new TemplateInstance, recreating nothing.
func NewAdoptCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := &adoptOptions{process: ProcessOptions{config: config, streams: streams}}
	cmd := &cobra.Command{
		Use:   "adopt (helm RELEASE | applyset PARENT | selector -l SELECTOR) (--template NAME | -f FILE) [--name NAME] [-p KEY=VALUE]... [--dry-run]",
		Short: "Move what Helm or kubectl manages under a TemplateInstance, recreating nothing",
		Long: "Create a TemplateInstance that takes over the live objects of a Helm release, of a kubectl\n" +
			"ApplySet (the parent: NAME for a Secret, configmaps/NAME) or of a label selector, rendering\n" +
			"the template with the given values. The server plans first and prints, per object, what the\n" +
			"render changes and removes, whose field ownership moves to Stencil, and the immutable fields\n" +
			"it would change, which refuse the adoption before anything is touched (--dry-run stops there).\n" +
			"Then the instance's controller takes every object over with a forced server-side apply, as\n" +
			"you; the values the release generated (a password in a live Secret) stay the instance's, and\n" +
			"the release's records (or the ApplySet's parent) are removed last. Nothing is deleted or\n" +
			"recreated; running it again changes nothing. See docs/adoption.md.",
		Example: "  stencil adopt helm web --template web -p NAME=web --dry-run\n" +
			"  stencil adopt helm web --template web -p NAME=web --retain-until-upgrade\n" +
			"  stencil adopt applyset web-set -f web.yaml -p NAME=web\n" +
			"  stencil adopt selector -l app=web --template web -p NAME=web",
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			adoption, err := o.adoption(args)
			if err != nil {
				return err
			}
			return o.run(cmd.Context(), config, streams, adoption)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&o.name, "name", "", "name of the TemplateInstance; the release's, the parent's or the template's if not given")
	flags.StringVar(&o.template, "template", "", "the stored Template of the namespace to render")
	flags.StringVarP(&o.file, "filename", "f", "", "a Template file to render inline instead (- for standard input)")
	flags.StringArrayVarP(&o.process.Params, "param", "p", nil, "a parameter value as KEY=VALUE (repeatable)")
	flags.StringVar(&o.process.ParamFile, "param-file", "", "a file of KEY=VALUE lines, or - for standard input; -p wins over it")
	flags.StringVarP(&o.selector, "selector", "l", "", "for adopt selector: the label selector of the objects")
	flags.StringArrayVar(&o.managers, "manager", nil, "a further field manager whose ownership moves to the instance (repeatable)")
	flags.BoolVar(&o.dryRun, "dry-run", false, "only plan: print what the adoption would do and change nothing")
	flags.BoolVar(&o.retainUntilUpgrade, "retain-until-upgrade", false, "keep every adopted object (lifecycle retain) until the instance's first upgrade")
	flags.BoolVar(&o.leaveUnrendered, "leave-unrendered", false, "leave the source's objects the template does not render in place instead of refusing")
	flags.BoolVar(&o.waitDone, "wait", true, "wait until the instance has taken every object over, or fail when it reports Failed")
	flags.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long --wait waits")
	flags.StringVarP(&o.output, "output", "o", "", "print the plan as yaml or json instead of a table")
	return cmd
}

// adoption builds the request from the arguments and flags.
func (o *adoptOptions) adoption(args []string) (*templatesv1.Adoption, error) {
	a := &templatesv1.TemplateInstanceAdoption{Managers: o.managers, RetainUntilUpgrade: o.retainUntilUpgrade, LeaveUnrendered: o.leaveUnrendered}
	name := o.name
	switch source := args[0]; {
	case source == "helm" && len(args) == 2:
		a.HelmRelease = args[1]
		name = orDefault(name, args[1])
	case source == "applyset" && len(args) == 2:
		a.ApplySet = args[1]
		parent := args[1]
		if i := strings.LastIndex(parent, "/"); i >= 0 {
			parent = parent[i+1:]
		}
		name = orDefault(name, parent)
	case source == "selector" && len(args) == 1:
		if o.selector == "" {
			return nil, fmt.Errorf("adopt selector needs -l SELECTOR")
		}
		selector, err := metav1.ParseToLabelSelector(o.selector)
		if err != nil {
			return nil, fmt.Errorf("-l %s: %v", o.selector, err)
		}
		a.Selector = selector
	default:
		return nil, fmt.Errorf("adopt what? helm RELEASE, applyset PARENT or selector -l SELECTOR, not %q", strings.Join(args, " "))
	}
	if o.selector != "" && a.Selector == nil {
		return nil, fmt.Errorf("-l is for adopt selector")
	}
	spec := templatesv1.TemplateInstanceSpec{Adoption: a}
	switch {
	case (o.template == "") == (o.file == ""):
		return nil, fmt.Errorf("give exactly one of --template NAME (a stored Template) and -f FILE (a Template file)")
	case o.template != "":
		spec.TemplateRef = &templatesv1.TemplateReference{Name: o.template}
		name = orDefault(name, o.template)
	default:
		data, err := o.process.read(o.file)
		if err != nil {
			return nil, err
		}
		raw, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", fileName(o.file), err)
		}
		spec.Template = &runtime.RawExtension{Raw: raw}
	}
	if name == "" {
		return nil, fmt.Errorf("--name is required: no release, parent or stored Template names the instance")
	}
	req, err := o.process.request()
	if err != nil {
		return nil, err
	}
	if len(req.Parameters) > 0 {
		spec.Parameters = req.Parameters
	}
	return &templatesv1.Adoption{TypeMeta: metav1.TypeMeta{APIVersion: templatesv1.SchemeGroupVersion.String(), Kind: "Adoption"},
		ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, nil
}

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

func (o *adoptOptions) run(ctx context.Context, config *ConfigFlags, streams IOStreams, in *templatesv1.Adoption) error {
	cs, namespace, err := newClient(config, streams)
	if err != nil {
		return err
	}
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req := cs.RESTClient().Post().Namespace(namespace).Resource("adoptions").Body(body)
	if o.dryRun {
		req = req.Param("dryRun", "All")
	}
	var out templatesv1.Adoption
	result := req.SetHeader("Content-Type", "application/json").Do(ctx)
	// Error decodes the server's Status; Raw's error would not.
	raw, err := result.Raw()
	if err != nil {
		err = result.Error()
		var status apierrors.APIStatus
		if asStatus(err, &status) && apierrors.IsInvalid(err) {
			return refusedError(status.Status())
		}
		return err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("the server's answer: %v", err)
	}
	if err := printAdoption(streams.Out, &out, o.output); err != nil {
		return err
	}
	switch {
	case out.Status.Phase == templatesv1.AdoptionRefused:
		return fmt.Errorf("the adoption is refused: nothing was touched")
	case o.dryRun || !o.waitDone || out.Status.Phase == templatesv1.AdoptionAdopted:
		return nil
	}
	return waitAdopted(ctx, cs, namespace, out.Name, o.timeout, streams)
}

func asStatus(err error, status *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*status = s
	}
	return ok
}

// refusedError lists every problem of a refused adoption, as the server's 422 names them.
func refusedError(s metav1.Status) error {
	var b strings.Builder
	b.WriteString(s.Message)
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			fmt.Fprintf(&b, "\n  %s: %s", c.Field, c.Message)
		}
	}
	return fmt.Errorf("%s", b.String())
}

// printAdoption prints the plan: as YAML or JSON, or as a table of objects with the paths
// each changes and removes.
func printAdoption(w io.Writer, a *templatesv1.Adoption, output string) error {
	switch output {
	case "yaml", "json":
		a.APIVersion, a.Kind = templatesv1.SchemeGroupVersion.String(), "Adoption"
		data, err := json.MarshalIndent(a, "", "  ")
		if err != nil {
			return err
		}
		if output == "yaml" {
			if data, err = yaml.JSONToYAML(data); err != nil {
				return err
			}
		}
		_, err = w.Write(append(data, '\n'))
		return err
	case "":
	default:
		return fmt.Errorf("-o %s: yaml or json", output)
	}
	s := a.Status
	fmt.Fprintf(w, "%s -> templateinstance %s: %s\n", s.Source, a.Name, s.Phase)
	if s.Message != "" {
		fmt.Fprintf(w, "  %s\n", s.Message)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tOBJECT\tLIFECYCLE\tCHANGED\tREMOVED\tMANAGERS MOVED")
	for _, o := range s.Objects {
		object := o.Kind + " " + o.Name
		if o.Namespace != "" {
			object = o.Kind + " " + o.Namespace + "/" + o.Name
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", o.Action, object, orDefault(o.Lifecycle, "-"), len(o.Changed), len(o.Removed), orDefault(strings.Join(o.Managers, ","), "-"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, o := range s.Objects {
		if len(o.Changed)+len(o.Removed)+len(o.Immutable)+len(o.Problems) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %s:\n", o.Kind, o.Name)
		for _, p := range o.Changed {
			fmt.Fprintf(w, "  ~ %s\n", p)
		}
		for _, p := range o.Removed {
			fmt.Fprintf(w, "  - %s\n", p)
		}
		for _, p := range o.Immutable {
			fmt.Fprintf(w, "  ! %s is immutable: the render changes it\n", p)
		}
		for _, p := range o.Problems {
			fmt.Fprintf(w, "  ! %s\n", p)
		}
	}
	for _, p := range s.GeneratedParameters {
		if p.From != "" {
			fmt.Fprintf(w, "generated parameter %s: kept from %s\n", p.Name, p.From)
		} else {
			fmt.Fprintf(w, "generated parameter %s: a new value is generated (%s)\n", p.Name, p.Reason)
		}
	}
	if len(s.Records) > 0 {
		fmt.Fprintf(w, "removed last: %s\n", strings.Join(s.Records, ", "))
	}
	return nil
}

// waitAdopted polls the instance until its Adopted condition is True, or Failed is True.
func waitAdopted(ctx context.Context, cs stencilclient.Interface, namespace, name string, timeout time.Duration, streams IOStreams) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		ti, err := cs.TemplateInstances(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceAdopted); c != nil {
			if c.Status == metav1.ConditionTrue {
				fmt.Fprintf(streams.Out, "templateinstance.templates.stencil.dev/%s adopted: %s\n", name, c.Message)
				return true, nil
			}
			last = c.Reason + ": " + c.Message
		}
		if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed); c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == ti.Generation {
			return false, fmt.Errorf("templateinstance %s failed: %s: %s", name, c.Reason, c.Message)
		}
		return false, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("templateinstance %s has not taken everything over after %s: %s", name, timeout, last)
	}
	return err
}
