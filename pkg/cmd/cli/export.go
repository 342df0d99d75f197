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
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/export"
)

// ExportOptions are the flags and arguments of stencil export.
type ExportOptions struct {
	// Resources are the TYPE[,TYPE...] or TYPE/NAME arguments; none means defaultExportKinds.
	Resources           []string
	Selector            string
	Name                string
	Output              string
	Parameterize        bool
	NoParameterize      bool
	IncludeSecretValues bool
	Create              bool
	ToNamespace         string

	config  *ConfigFlags
	streams IOStreams
}

// NewExportCommand returns stencil export.
func NewExportCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := &ExportOptions{config: config, streams: streams}
	cmd := &cobra.Command{
		Use:   "export [TYPE[,TYPE...] | TYPE/NAME...] --name NAME",
		Short: "Turn the objects of a namespace into a Template",
		Long: "Read the objects of a namespace with your credentials and write a Template that re-creates them.\n\n" +
			"Without TYPE, the common kinds of an application are read: Deployments, StatefulSets, DaemonSets,\n" +
			"CronJobs, Jobs, Services, ConfigMaps, Secrets, PersistentVolumeClaims, ServiceAccounts, Roles,\n" +
			"RoleBindings, Ingresses, NetworkPolicies, HorizontalPodAutoscalers and PodDisruptionBudgets. Any kind\n" +
			"the server serves, custom resources included, can be named instead. A kind you may not list is left\n" +
			"out with a warning. Objects that something else creates (what an exported object owns, what a\n" +
			"controller manages, the default ServiceAccount, kube-root-ca.crt) are left out and reported.\n\n" +
			"The objects lose what the cluster wrote (status, uid, resourceVersion, managedFields, cluster IPs,\n" +
			"node ports, kubectl's annotations, fields equal to the server's defaults). With --parameterize (the\n" +
			"default) the namespace is dropped, the application's name becomes NAME, each image <CONTAINER>_IMAGE\n" +
			"and each replica count an int parameter. Secret values are never written unless\n" +
			"--include-secret-values: each becomes a required parameter, given through stringData.\n\n" +
			"The Template is validated as the server validates one it stores, then printed (-o yaml, -o json,\n" +
			"or -o openshift for OpenShift's template.openshift.io/v1 form) or stored with --create.",
		Example: "  # The application in the current namespace, as a template named shop\n" +
			"  stencil export --name shop > shop.yaml\n\n" +
			"  # Store it, then make a copy of the application in another namespace\n" +
			"  kubectl stencil export -n prod --name shop --create\n" +
			"  stencil process shop -n prod -p NAME=shop-test -p DB_PASSWORD=... | kubectl apply -n test -f -\n\n" +
			"  # Some kinds only, by label, custom resources included\n" +
			"  stencil export deployments,services,widgets.example.com -l app=shop --name shop",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Resources = args
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.Selector, "selector", "l", "", "read only the objects with these labels (key=value,key2!=value2)")
	flags.StringVar(&o.Name, "name", "", "the name of the Template (required)")
	flags.StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml, json, or openshift (a template.openshift.io/v1 Template, as YAML)")
	flags.BoolVar(&o.Parameterize, "parameterize", true, "make the namespace, the application's name, images and replicas parameters")
	flags.BoolVar(&o.NoParameterize, "no-parameterize", false, "keep names, images and replicas as they are (Secret values still become parameters)")
	flags.BoolVar(&o.IncludeSecretValues, "include-secret-values", false, "write Secret values into the template instead of making them parameters")
	flags.BoolVar(&o.Create, "create", false, "store the Template on the Stencil server instead of printing it")
	flags.StringVar(&o.ToNamespace, "to-namespace", "", "with --create, the namespace to store the Template in (default: the namespace read)")
	return cmd
}

// Validate checks the flags and arguments before anything is read.
func (o *ExportOptions) Validate() error {
	var problems []string
	if o.Name == "" {
		problems = append(problems, "--name is required: it names the Template")
	}
	switch o.Output {
	case "yaml", "json", "openshift":
	default:
		problems = append(problems, fmt.Sprintf("--output must be yaml, json or openshift, not %q", o.Output))
	}
	if o.Create && o.Output == "openshift" {
		problems = append(problems, "--create stores a templates.stencil.dev Template: it takes no -o openshift")
	}
	if o.ToNamespace != "" && !o.Create {
		problems = append(problems, "--to-namespace needs --create")
	}
	named := 0
	for _, r := range o.Resources {
		if strings.Contains(r, "/") {
			named++
		}
	}
	switch {
	case named > 0 && named != len(o.Resources):
		problems = append(problems, "give TYPE[,TYPE...] or TYPE/NAME arguments, not both")
	case named == 0 && len(o.Resources) > 1:
		problems = append(problems, "give the types as one argument separated by commas (deployments,services) or objects as TYPE/NAME")
	case named > 0 && o.Selector != "":
		problems = append(problems, "--selector reads lists: it cannot be combined with TYPE/NAME")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n       "))
	}
	return nil
}

// Run reads the objects, exports them and prints or stores the Template.
func (o *ExportOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	reader, err := newObjectReader(o.config, o.streams)
	if err != nil {
		return err
	}
	return o.export(ctx, reader)
}

// export is Run with the reader made: the tests give theirs.
func (o *ExportOptions) export(ctx context.Context, reader *objectReader) error {
	objects, report, err := reader.read(ctx, o.Resources, o.Selector)
	if err != nil {
		return err
	}
	res, err := export.Export(objects, export.Options{
		Name:                o.Name,
		Parameterize:        o.Parameterize && !o.NoParameterize,
		IncludeSecretValues: o.IncludeSecretValues,
	})
	var nothing *export.NothingToExportError
	if errors.As(err, &nothing) && len(nothing.Skipped) == 0 {
		return o.nothingRead(ctx, reader, report)
	}
	if err != nil {
		return err
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(o.streams.ErrOut, "skipped %s: %s\n", s.Object, s.Reason)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(o.streams.ErrOut, "warning: %s\n", w)
	}
	if o.Create {
		return o.create(ctx, res.Template, reader.namespace)
	}
	form, format := formStencil, o.Output
	if o.Output == "openshift" {
		form, format = formOpenShift, "yaml"
		// OpenShift's processor has no $$ escape: there, an escaped string keeps its extra "$".
		for _, obj := range res.Escaped {
			fmt.Fprintf(o.streams.ErrOut, "warning: %s holds text that processing would read as a parameter reference; "+
				"it is escaped as $${...}, which only Stencil reads back\n", obj)
		}
	}
	out, err := ConvertTemplate(res.Template, form)
	if err != nil {
		return err
	}
	return printList(o.streams.Out, out, format)
}

// nothingRead says why a read found no object: the user may read none of the kinds, the
// namespace does not exist, or it holds none of them (with those labels).
func (o *ExportOptions) nothingRead(ctx context.Context, reader *objectReader, report *readReport) error {
	if len(report.forbidden) == len(report.read) {
		return fmt.Errorf("nothing to export: you may read none of %s in namespace %s", strings.Join(report.read, ", "), reader.namespace)
	}
	if reader.namespaceMissing(ctx) {
		return fmt.Errorf("nothing to export: namespace %s does not exist", reader.namespace)
	}
	readable := slices.DeleteFunc(slices.Clone(report.read), func(s string) bool { return slices.Contains(report.forbidden, s) })
	which := ""
	if o.Selector != "" {
		which = " with labels " + o.Selector
	}
	return fmt.Errorf("nothing to export: namespace %s holds none of %s%s", reader.namespace, strings.Join(readable, ", "), which)
}

// create stores the Template in --to-namespace, or the namespace read.
func (o *ExportOptions) create(ctx context.Context, t *templates.Template, namespace string) error {
	if o.ToNamespace != "" {
		namespace = o.ToNamespace
	}
	cs, _, err := newClient(o.config, o.streams)
	if err != nil {
		return err
	}
	versioned, err := toV1alpha1(t)
	if err != nil {
		return err
	}
	created, err := cs.Templates(namespace).Create(ctx, versioned, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.streams.Out, "template.templates.stencil.dev/%s created in namespace %s\n", created.Name, namespace)
	return nil
}

// toV1alpha1 converts the Template to the version the server serves.
func toV1alpha1(t *templates.Template) (*v1alpha1.Template, error) {
	versioned := &v1alpha1.Template{}
	if err := v1alpha1.Convert_templates_Template_To_v1alpha1_Template(t, versioned, nil); err != nil {
		return nil, err
	}
	versioned.APIVersion, versioned.Kind = v1alpha1.SchemeGroupVersion.String(), "Template"
	return versioned, nil
}
