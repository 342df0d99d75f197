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

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	stencilclient "stencil.dev/stencil/pkg/client"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/process"
)

// differ previews what the controller would do to the cluster for an instance.
type differ struct {
	config    *ConfigFlags
	streams   IOStreams
	stencil   stencilclient.Interface
	dynamic   dynamic.Interface
	namespace string
}

// NewDiffCommand returns stencil diff, which previews an instance's apply with server-side
// dry-run.
func NewDiffCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	var file, template string
	var preview templatePreview
	cmd := &cobra.Command{
		Use:   "diff (NAME | -f INSTANCE.yaml | --template NAME (-f CHANGED-TEMPLATE.yaml | --revision N))",
		Short: "Preview what applying a TemplateInstance, or a template change, would do",
		Long: "Render a TemplateInstance as its controller would and compare every object with the live\n" +
			"one through a server-side dry-run apply: which objects change (with a diff), which are\n" +
			"added, which would be pruned. NAME previews a live instance as it is; -f an instance from a\n" +
			"file (against the live one of that name, if any). Nothing is written.\n\n" +
			"--template NAME -f FILE previews a changed template for every instance of the stored\n" +
			"template NAME that would move to it, on the server (templates/NAME/preview): each instance\n" +
			"is Unchanged, Changed, WouldPrune, Failed, BreaksParameters or Forbidden, with the fields\n" +
			"that change (secret values masked), rendered with its own values; --revision N previews a\n" +
			"stored revision instead (an undo), --live compares with the live objects.",
		Example: "  stencil diff shop\n  stencil diff -f shop.yaml\n  stencil diff --template redis -f redis-v2.yaml\n" +
			"  stencil diff --template redis --revision 1 -o yaml",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := newDiffer(config, streams)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			switch {
			case template != "" && ((file == "") == (preview.revision == 0) || len(args) > 0):
				return errors.New("--template NAME needs -f with the changed template or --revision, and no instance name")
			case template != "":
				return d.templateChange(ctx, template, file, preview)
			case preview.revision != 0 || preview.live || preview.output != "table":
				return errors.New("--revision, --live and -o go with --template")
			case file != "" && len(args) == 0:
				return d.instanceFile(ctx, file)
			case file == "" && len(args) == 1:
				live, err := d.stencil.TemplateInstances(d.namespace).Get(ctx, args[0], metav1.GetOptions{})
				if err != nil {
					return err
				}
				return d.print(ctx, live, live, nil)
			default:
				return errors.New("give an instance NAME, or -f with an instance, or --template NAME -f with a changed template")
			}
		},
	}
	cmd.Flags().StringVarP(&file, "filename", "f", "", "the TemplateInstance, or with --template the changed Template, as YAML or JSON (- for standard input)")
	cmd.Flags().StringVar(&template, "template", "", "preview a change of this stored template across all of its instances")
	cmd.Flags().Int64Var(&preview.revision, "revision", 0, "with --template: preview this stored revision of the template instead of a file")
	cmd.Flags().BoolVar(&preview.live, "live", false, "with --template: compare with the live objects (a server-side dry-run as each requester)")
	cmd.Flags().StringVarP(&preview.output, "output", "o", "table", "with --template: table, yaml or json")
	return cmd
}

func newDiffer(config *ConfigFlags, streams IOStreams) (*differ, error) {
	cs, namespace, err := newClient(config, streams)
	if err != nil {
		return nil, err
	}
	restConfig, err := config.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	return &differ{config: config, streams: streams, stencil: cs, dynamic: dyn, namespace: namespace}, nil
}

func (d *differ) readFile(name string) ([]byte, error) {
	o := &ProcessOptions{streams: d.streams}
	return o.read(name)
}

// instanceFile previews an instance from a file against the live instance of its name.
func (d *differ) instanceFile(ctx context.Context, file string) error {
	data, err := d.readFile(file)
	if err != nil {
		return err
	}
	ti := &templatesv1.TemplateInstance{}
	if err := yaml.Unmarshal(data, ti); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	if ti.Namespace == "" {
		ti.Namespace = d.namespace
	}
	live, err := d.stencil.TemplateInstances(ti.Namespace).Get(ctx, ti.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		live, err = nil, nil
	}
	if err != nil {
		return err
	}
	return d.print(ctx, ti, live, nil)
}

// render processes the instance's template (or changedTemplate) with its values, as the
// controller does: parametersFrom Secrets, then spec.parameters, then the live instance's
// generated values for generated parameters nobody set.
func (d *differ) render(ctx context.Context, ti, live *templatesv1.TemplateInstance, changedTemplate []byte) ([]*unstructured.Unstructured, error) {
	var t *templates.Template
	var body []byte
	var err error
	switch {
	case changedTemplate != nil:
		body = changedTemplate
		t, _, err = process.DecodeTemplate(body)
	case ti.Spec.TemplateRef != nil:
		t, err = getTemplate(d.stencil, ti.Namespace, ti.Spec.TemplateRef.Name)
	case ti.Spec.Template != nil:
		body = ti.Spec.Template.Raw
		t, _, err = process.DecodeTemplate(body)
	default:
		return nil, errors.New("the instance has neither templateRef nor template")
	}
	if err != nil {
		return nil, err
	}
	values, err := d.values(ctx, ti, live, t)
	if err != nil {
		return nil, err
	}
	var list *templatesv1.List
	if body == nil {
		list, err = d.stencil.Templates(ti.Namespace).Process(ctx, ti.Spec.TemplateRef.Name, &templatesv1.TemplateParameters{
			Parameters: values, Labels: ti.Spec.Labels, Properties: ti.Spec.Properties}, metav1.CreateOptions{})
	} else {
		filled, ferr := (&ProcessOptions{streams: d.streams}).fillTemplate(t, process.Request{Parameters: values, Labels: ti.Spec.Labels})
		if ferr != nil {
			return nil, ferr
		}
		list, err = stencilclient.ProcessTemplate(ctx, d.stencil.RESTClient(), ti.Namespace, filled, metav1.CreateOptions{})
	}
	if err != nil {
		return nil, err
	}
	objects := make([]*unstructured.Unstructured, 0, len(list.Items))
	for _, item := range list.Items {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(item.Raw); err != nil {
			return nil, err
		}
		objects = append(objects, obj)
	}
	return objects, nil
}

// values merges the instance's values as the controller does, then takes the live instance's
// generated values for the generated parameters nobody set.
func (d *differ) values(ctx context.Context, ti, live *templatesv1.TemplateInstance, t *templates.Template) (map[string]string, error) {
	inputs, err := inventory.ReadInputs(ti, t, func(src inventory.Source) (map[string][]byte, error) {
		if src.Kind == inventory.ConfigMapKind {
			cm, err := d.configMap(ctx, ti.Namespace, src.Name)
			if err != nil {
				return nil, fmt.Errorf("parametersFrom: %w", err)
			}
			return inventory.ConfigMapData(cm.Data, cm.BinaryData), nil
		}
		s, err := d.secret(ctx, ti.Namespace, src.Name)
		if err != nil {
			return nil, fmt.Errorf("parametersFrom: %w", err)
		}
		return s.Data, nil
	})
	if err != nil {
		return nil, err
	}
	values := inputs.Values
	if live == nil || live.Status.GeneratedParametersSecret == "" {
		return values, nil
	}
	s, err := d.secret(ctx, ti.Namespace, live.Status.GeneratedParametersSecret)
	if err != nil {
		fmt.Fprintf(d.streams.ErrOut, "Warning: the generated values of %s cannot be read (%v): generated parameters show new values\n", live.Name, err)
		return values, nil
	}
	for name := range inventory.GeneratedParameters(t, values) {
		if v, ok := s.Data[name]; ok {
			values[name] = string(v)
		}
	}
	return values, nil
}

// configMap reads a ConfigMap through the dynamic client: client-go's typed core client
// would link its scheme, every Kubernetes type registered at start-up (docs/performance.md).
func (d *differ) configMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	return cm, d.get(ctx, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, namespace, name, cm)
}

// secret reads a Secret as configMap reads a ConfigMap.
func (d *differ) secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	return s, d.get(ctx, schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, namespace, name, s)
}

func (d *differ) get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, into any) error {
	u, err := d.dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}

// applySetID is the label value the controller puts on the instance's objects.
func applySetID(ti *templatesv1.TemplateInstance) string {
	return inventory.ApplySetID(ti.Namespace, ti.Name)
}
