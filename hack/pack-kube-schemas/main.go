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

// Command pack-kube-schemas reads an OpenAPI v3 document on stdin and writes to the file
// named by its argument the part of its schemas the type check reads (typecheck.Schema),
// gzipped: what pkg/typecheck/kubeschemas embeds. The output depends on the input alone (JSON
// with sorted keys, a gzip header without name or time), so that hack/verify-kube-schemas.sh
// can compare it with the committed file.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"

	"stencil.dev/stencil/pkg/typecheck"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "pack-kube-schemas: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: pack-kube-schemas OUTPUT < openapi-v3.json")
	}
	var doc typecheck.Document
	if err := json.NewDecoder(os.Stdin).Decode(&doc); err != nil {
		return err
	}
	if len(doc.Components.Schemas) == 0 {
		return fmt.Errorf("the document has no schemas")
	}
	compact, err := json.Marshal(&doc)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(append(compact, '\n')); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(os.Args[1], out.Bytes(), 0o644)
}
