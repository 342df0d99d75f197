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

package apiserver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"stencil.dev/stencil/pkg/positions"
)

// oneYAMLDocument decodes a YAML body that is a stream of documents as its one object. The
// YAML decoder of the API machinery reads the first document only: a template file that
// starts with `---` and a comment block (as Helm-converted templates do) would be read as an
// empty object, and processedtemplates would answer an empty List for it; a file of two
// templates would lose the second without a word. Empty documents (only comments, or null)
// are skipped, as `oc process -f` and `stencil process -f` skip them; more than one object is a
// 400 naming how many there are.
//
// The document is converted to JSON by pkg/positions (what sigs.k8s.io/yaml's YAMLToJSON
// gives, at a fraction of its cost) and decoded by the JSON serializer, as the YAML serializer
// would after its own conversion. A strict decoder (fieldValidation Strict or Warn, the
// default) also refuses keys a YAML mapping repeats, which the conversion drops: the YAML
// serializer converts the body a second time with YAMLToJSONStrict to find them; here that
// costly pass runs only for a document that repeats a key, and its error comes first, as the
// YAML serializer lists it.
type oneYAMLDocument struct {
	runtime.Serializer
	// json decodes the converted document; nil leaves the document to Serializer.
	json   runtime.Serializer
	strict bool
}

// Decode decodes the one non-empty document of data.
func (d oneYAMLDocument) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if d.json != nil {
		// The stream read once: its documents found and the one that is not empty converted in
		// the same pass. A document that may repeat a key, which a strict decoder must hear of,
		// is read below as before.
		converted, documents, repeats, ok := positions.OnlyDocument(data)
		switch {
		case ok && documents > 1:
			return nil, nil, tooManyDocuments(documents)
		case ok && !(repeats && d.strict):
			return d.json.Decode(converted, defaults, into)
		case ok && !bytes.Contains(data, []byte("---")):
			// One document that may repeat a key: its JSON is read, and only the strict
			// conversion runs again, for its words.
			obj, gvk, err := d.json.Decode(converted, defaults, into)
			return obj, gvk, withRepeatedKeys(data, err)
		}
	}
	doc, err := onlyDocument(data)
	if err != nil {
		return nil, nil, err
	}
	if d.json == nil {
		return d.Serializer.Decode(doc, defaults, into)
	}
	converted, repeats, err := positions.YAMLToJSONRepeats(doc)
	if err != nil {
		return nil, nil, err
	}
	obj, gvk, err := d.json.Decode(converted, defaults, into)
	if !d.strict || !repeats {
		return obj, gvk, err
	}
	return obj, gvk, withRepeatedKeys(doc, err)
}

// withRepeatedKeys adds to err, what the JSON decoder said of a YAML document, the strict
// conversion's words on the keys doc repeats, first, as the YAML serializer lists them.
func withRepeatedKeys(doc []byte, err error) error {
	_, yamlErr := positions.YAMLToJSONStrict(doc)
	return withYAMLWords(yamlErr, err)
}

// withYAMLWords adds to err, what the JSON decoder said of a YAML document, yamlErr, what the
// strict conversion said of it (nil: nothing), first.
func withYAMLWords(yamlErr, err error) error {
	if yamlErr != nil {
		switch strictErr, ok := runtime.AsStrictDecodingError(err); {
		case err == nil:
			err = runtime.NewStrictDecodingError([]error{yamlErr})
		case ok:
			err = runtime.NewStrictDecodingError(append([]error{yamlErr}, strictErr.Errors()...))
		}
	}
	return err
}

// onlyDocument returns the one document of data that is not empty, or data itself when it is
// one document or cannot be split (the decoder then says what is wrong with it). A document
// whose aliases expand past positions.MaxJSONBytes is an error.
func onlyDocument(data []byte) ([]byte, error) {
	if !bytes.Contains(data, []byte("---")) {
		return data, nil
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var found []byte
	documents := 0
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return data, nil
		}
		asJSON, err := positions.YAMLToJSON(doc)
		if expansion := (*positions.ExpansionError)(nil); errors.As(err, &expansion) {
			return nil, err
		}
		if err != nil {
			return data, nil
		}
		if trimmed := bytes.TrimSpace(asJSON); len(trimmed) == 0 || string(trimmed) == "null" {
			continue
		}
		if documents++; documents == 1 {
			found = doc
		}
	}
	if documents > 1 {
		return nil, tooManyDocuments(documents)
	}
	if found == nil {
		return data, nil
	}
	return found, nil
}

// tooManyDocuments is the error of a YAML body of more than one object.
func tooManyDocuments(documents int) error {
	return fmt.Errorf("the YAML body holds %d documents: a request takes one object (send each on its own)", documents)
}
