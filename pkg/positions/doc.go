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

// Package positions reads YAML and JSON files into JSON bytes and an Index of where each
// field of that JSON was written in the file (line and column per field path), in one pass.
//
// Read is the reader of every template file and request body that may be YAML. Its YAML side
// gives exactly the bytes sigs.k8s.io/yaml's YAMLToJSON gives (what kubectl and oc read): YAML
// 1.1 scalars (yes/no/on/off are booleans, 0777 is octal, timestamps stay strings), keys that
// are not strings written as strings, anchors, aliases and merge keys, the last of duplicate
// keys, keys sorted, only the first document of a stream, and the same errors (.inf as a
// value, null keys). It is a parser of its own for the YAML that templates are written in,
// which builds no Go values: it allocates about a tenth of what YAMLToJSON does and runs
// several times faster. Anything it does not handle itself (tags, tabs, complex keys,
// directives, a syntax error) is handed to YAMLToJSON, so its answer is still exact; such a
// file gets positions from go.yaml.in/yaml/v3's node tree instead, by field path. The
// differential fuzz test (FuzzYAMLToJSON) and the corpus test hold the two to the same bytes.
//
// One answer differs on purpose: a document whose aliases stand for more than MaxJSONBytes
// of its size (eight times, and 1 KiB) is refused with an *ExpansionError before it is
// written, on either path. sigs.k8s.io/yaml bounds aliases by nodes, not bytes, so a 1 MB
// scalar aliased 500 times is 500 MB there; a document without aliases never nears the bound.
// Every YAML the server reads goes through this package for that reason.
//
// JSON input is kept as it is: its Index maps a field path to the offset of its value in the
// bytes, and the offset to a line and column, so it costs nothing until it is asked.
//
// An Index is what diagnostics (path:line:col: message), provenance and lint regions ask:
// Lookup from a field path such as objects[2].spec.replicas to a Span, PathAt from a line and
// column back to the innermost field path. It imports nothing of ours but pkg/jsonbytes.
package positions
