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
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/redact"
	"stencil.dev/stencil/pkg/render"
)

// printList writes a List, or any JSON document, as indented JSON or as YAML. Both keep the
// member order and the exact numbers. It checks what it is given, which comes from a server
// or a file; writeList writes what this process wrote.
func printList(w io.Writer, list []byte, format string) error {
	var out []byte
	var err error
	if format == "json" {
		out, err = jsonbytes.Indent(list, "    ")
	} else {
		out, err = jsonbytes.ToYAML(list)
	}
	if err != nil {
		return err
	}
	return writeOutput(w, out, format)
}

// writeList is printList of a List known to be valid and compact: the engine's and the
// transformers' output. Checking it again would cost as much as writing it.
func writeList(w io.Writer, list jsonbytes.Compacted, format string) error {
	if format == "json" {
		return writeOutput(w, list.Indent("    "), format)
	}
	out, err := list.YAML()
	if err != nil {
		return err
	}
	return writeOutput(w, out, format)
}

// writeOutput writes a document in one write; JSON ends with a newline, as YAML does.
func writeOutput(w io.Writer, out []byte, format string) error {
	if format == "json" {
		out = append(out, '\n')
	}
	_, err := w.Write(out)
	return err
}

// printParameters writes the template's parameters as a table, as oc process --parameters
// does, then its rules, which are part of what a value must satisfy. A secret parameter's
// default (redact.Parameter's rule) is masked unless showSecrets: a terminal's scrollback and a CI log are not places
// for it. Its generator input is no secret and shows.
func printParameters(w io.Writer, t *templates.Template, showSecrets bool) error {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDESCRIPTION\tGENERATOR\tVALUE\tREQUIRED")
	oneLine := strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ")
	for _, p := range t.Parameters {
		value := p.Value
		switch {
		case value == "" && p.Generate != "":
			value = p.From
		case value != "" && redact.Parameter(&p, false) && !showSecrets:
			value = redact.Masked
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%t\n", p.Name, oneLine.Replace(p.Description), p.Generate, oneLine.Replace(value), p.Required)
	}
	if len(t.Rules) > 0 {
		fmt.Fprintln(tw, "\nRULE\tMESSAGE\tFIELD")
		for _, r := range t.Rules {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", oneLine.Replace(r.Rule), oneLine.Replace(r.Message), r.FieldPath)
		}
	}
	return tw.Flush()
}

// writeDestinations writes the objects of each destination, named by their
// templates.stencil.dev/destination annotation, as one List per file: DIR/<destination>.yaml
// (or .json).
func writeDestinations(dir string, list []byte, format string) error {
	var parsed struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(list, &parsed); err != nil {
		return err
	}
	var order []string
	byDestination := map[string][]json.RawMessage{}
	for _, item := range parsed.Items {
		var meta struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(item, &meta); err != nil {
			return err
		}
		name := meta.Metadata.Annotations[render.DestinationAnnotation]
		if _, seen := byDestination[name]; !seen {
			order = append(order, name)
		}
		byDestination[name] = append(byDestination[name], item)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range order {
		if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return fmt.Errorf("destination %q cannot name a file", name)
		}
		var b bytes.Buffer
		if err := printList(&b, process.ListBytes(byDestination[name]), format); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name+"."+format), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
