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

package transform

import (
	"bytes"
	"strings"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// RenderYAML renders a consolidated list for display (`stencil transformers NAME`, the KEP's
// debugging view): a YAML list in run order, each config preceded by a comment saying where
// it was written.
func RenderYAML(configs []Config) ([]byte, error) {
	var b bytes.Buffer
	if len(configs) == 0 {
		return []byte("[]\n"), nil
	}
	for i, c := range configs {
		y, err := jsonbytes.ToYAML(c.Raw)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		if c.Path != nil {
			b.WriteString("# " + c.Path.String() + "\n")
		}
		for j, line := range strings.Split(strings.TrimRight(string(y), "\n"), "\n") {
			if j == 0 {
				b.WriteString("- ")
			} else {
				b.WriteString("  ")
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// RenderJSON renders a consolidated list as a JSON array of the configs, for -o json.
func RenderJSON(configs []Config) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, c := range configs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(c.Raw)
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}
