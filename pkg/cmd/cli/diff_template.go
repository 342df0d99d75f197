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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/process"
)

// templatePreview holds the flags of stencil diff --template.
type templatePreview struct {
	revision int64
	live     bool
	output   string
}

// templateChange previews a changed template (file) or a stored revision for every instance
// of the stored template name, through the server's templates/NAME/preview: the server renders
// each instance with its own values, as its controller would.
func (d *differ) templateChange(ctx context.Context, name, file string, opts templatePreview) error {
	switch opts.output {
	case "table", "yaml", "json":
	default:
		return fmt.Errorf("-o %q: want table, yaml or json", opts.output)
	}
	req := &templatesv1.TemplatePreview{Spec: templatesv1.TemplatePreviewSpec{Revision: opts.revision, Live: opts.live}}
	if file != "" {
		data, err := d.readFile(file)
		if err != nil {
			return err
		}
		// Read as the server reads it, for a message of this file's own; sent as JSON.
		if _, _, err := process.DecodeTemplate(data); err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
		raw, err := templateJSON(data)
		if err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
		req.Spec.Template = &runtime.RawExtension{Raw: raw}
	}
	got, err := d.stencil.Templates(d.namespace).Preview(ctx, name, req, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	if opts.output != "table" {
		got.APIVersion, got.Kind = templatesv1.SchemeGroupVersion.String(), "TemplatePreview"
		data, err := json.Marshal(got)
		if err != nil {
			return err
		}
		return printList(d.streams.Out, data, opts.output)
	}
	printPreview(d.streams.Out, d.namespace, got)
	return nil
}

// templateJSON is a YAML or JSON template document as JSON, read as kubectl reads a file
// (with what its aliases may expand bounded, as the server bounds it).
func templateJSON(data []byte) ([]byte, error) {
	return positions.YAMLToJSON(data)
}

// printPreview writes a preview as a table of instances, then what changes for each.
func printPreview(w io.Writer, namespace string, p *templatesv1.TemplatePreview) {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "INSTANCE\tRESULT\tFROM\tOBJECTS")
	for _, i := range p.Status.Instances {
		from := "-"
		if i.FromRevision > 0 {
			from = fmt.Sprint(i.FromRevision)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", i.Name, i.Classification, from, objectCounts(i.Objects))
	}
	for _, s := range p.Status.Skipped {
		fmt.Fprintf(tw, "%s\tskipped (%s)\t\t\n", s.Name, s.Reason)
	}
	tw.Flush()
	fmt.Fprintf(w, "candidate: revision %d (%s); plan %s\n", p.Status.Revision, shortHash(p.Status.CandidateHash), p.Status.PlanHash)
	for _, i := range p.Status.Instances {
		if len(i.Objects) == 0 && i.Message == "" {
			continue
		}
		fmt.Fprintf(w, "\ntemplateinstance %s/%s: %s\n", namespace, i.Name, i.Classification)
		if i.Message != "" {
			fmt.Fprintf(w, "  %s\n", i.Message)
		}
		for _, c := range i.Causes {
			fmt.Fprintf(w, "  %s: %s\n", c.Field, c.Message)
		}
		for _, o := range i.Objects {
			where := o.Name
			if o.Namespace != "" {
				where = o.Namespace + "/" + o.Name
			}
			fmt.Fprintf(w, "  %s: %s %s\n", strings.ToLower(o.Change), o.Kind, where)
			for _, f := range o.Fields {
				switch f.Change {
				case "Added":
					fmt.Fprintf(w, "    + %s: %s\n", f.Path, f.After)
				case "Removed":
					fmt.Fprintf(w, "    - %s: %s\n", f.Path, f.Before)
				case "Changed":
					fmt.Fprintf(w, "    ~ %s: %s -> %s\n", f.Path, f.Before, f.After)
				default:
					fmt.Fprintf(w, "    %s\n", f.After)
				}
			}
		}
		if i.Masked {
			fmt.Fprintln(w, "  (secret values masked)")
		}
	}
}

// objectCounts summarizes the objects of one instance's preview.
func objectCounts(objects []templatesv1.ObjectChange) string {
	counts := map[string]int{}
	for _, o := range objects {
		counts[strings.ToLower(o.Change)]++
	}
	var parts []string
	for _, c := range []string{"added", "changed", "removed", "released"} {
		if counts[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[c], c))
		}
	}
	return strings.Join(parts, ", ")
}

// shortHash is a hash's first 12 hex digits.
func shortHash(hash string) string {
	hex := strings.TrimPrefix(hash, "sha256:")
	if len(hex) > 12 {
		hex = hex[:12]
	}
	return hex
}
