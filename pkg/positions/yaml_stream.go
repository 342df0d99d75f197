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

package positions

import "bytes"

// OnlyDocument reads a YAML stream in one pass and returns the JSON of its one document that
// is not empty, as the API machinery's YAML reader (k8s.io/apimachinery's YAMLReader, which
// splits a stream at its "---" lines) and YAMLToJSON of each document would find it: out is
// that document's JSON (null when every document is empty), documents how many are not empty
// (only comments, or null), repeats whether a mapping of out's document may repeat a key (as
// YAMLToJSONRepeats says). A request body of several documents with one template among empty
// ones (the header of templates converted from Helm charts) is so converted once, not once to
// find the template and again to read it.
//
// ok is false when the fast reader does not read the whole stream as the YAML reader splits
// it: a line that starts with "---" or "..." and is not a document marker it reads alike
// ("--- a", "---#"), or anything YAMLToJSON would read of a document instead: the caller then
// splits and converts the stream as before.
func OnlyDocument(data []byte) (out []byte, documents int, repeats bool, ok bool) {
	s, ok := onlyDocument(data, false, false, nil)
	return s.JSON, s.Documents, s.Repeats, ok
}

// Stream is a YAML stream as OnlyDocumentStrict reads it.
type Stream struct {
	// JSON, Documents and Repeats are what OnlyDocument returns; Top is where the top-level
	// members of the document it converts lie in JSON (as YAMLToJSONTop says; nil when no
	// document has anything).
	JSON      []byte
	Top       *Top
	Documents int
	Repeats   bool
	// Strict is what YAMLToJSONStrict(data) returns as its error (nil when it refuses
	// nothing), when StrictKnown: see OnlyDocumentStrict.
	Strict      error
	StrictKnown bool
}

// OnlyDocumentStrict is OnlyDocument, also giving where the document's members lie (Top) and
// a strict decoder's words on the keys the document repeats, from the same read: a server's YAML decoder converts a body holding no
// "---" as it is, and a strict one converts it again with YAMLToJSONStrict only for its words
// when a key may repeat (Repeats). StrictKnown says Strict is what that conversion returns: it
// is false when Repeats is, when data holds "---" (the decoder then splits the stream, and
// counts lines from the document's start), and when the words need what the fast reader leaves
// to sigs.k8s.io/yaml (the line of an anchored or empty value).
func OnlyDocumentStrict(data []byte) (Stream, bool) {
	return onlyDocument(data, true, true, nil)
}

// JSONMemory gives the memory the JSON of a document is copied into.
type JSONMemory interface {
	// JSONMemory returns memory for a JSON of n bytes: a slice of length n (anything else is
	// not used, and the JSON is copied into memory of its own).
	JSONMemory(n int) []byte
}

// OnlyDocumentStrictInto is OnlyDocumentStrict, the JSON of a document copied into the memory
// into gives, for a caller that uses that memory again once it is done with the JSON (a
// server's pooled buffers; an interface rather than a function, which a caller would make
// for each read). into may be asked once per document, or not at all (a JSON too large to
// copy, no document): the caller tells its memory by Stream.JSON.
func OnlyDocumentStrictInto(data []byte, into JSONMemory) (Stream, bool) {
	return onlyDocument(data, true, true, into)
}

func onlyDocument(data []byte, withTop, withStrict bool, into JSONMemory) (s Stream, ok bool) {
	printed, tabs := printable(data)
	if len(data) > 1<<31-1 || !printed || len(data) > 0 && (data[0] == '-' || data[0] == '.') && !plainMarkerLine(data) {
		return Stream{}, false
	}
	// Whether data holds "---" is looked at only when it matters (a search of the whole).
	holdsMarker := func() bool { return bytes.Contains(data, []byte("---")) }
	if len(data) > 0 && data[len(data)-1] != '\n' && holdsMarker() {
		// The YAML reader ends the last line of a stream it splits with a line break, which a
		// block scalar at its end keeps.
		data = append(data[:len(data):len(data)], '\n')
	}
	defer func() {
		if r := recover(); r != nil {
			s, ok = Stream{}, false
		}
	}()
	// The other lines are checked as the reader passes their line breaks (newline), a stream
	// it reads to its end: plainMarkers in the same pass.
	p := parser{src: data, hasTabs: tabs, markerLines: true, into: into}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		p.pos, p.lineStart = 3, 3
	}
	p.takeScratch(len(data))
	defer p.releaseScratch()
	for {
		// Each document is read on its own, as each is converted on its own.
		p.nodes, p.kids, p.stack, p.arena, p.runBytes = p.nodes[:0], p.kids[:0], p.stack[:0], p.arena[:0], 0
		p.anchors, p.hasPending, p.hasAliases, p.repeats, p.slots, p.tabs = nil, false, false, false, 0, 0
		start := p.pos
		root := p.document()
		p.checkTabs(start)
		// Each document's JSON is bounded by its own size, as YAMLToJSON of the document alone
		// bounds it (MaxJSONBytes): a refusal leaves the stream to the caller's split, which
		// finds the same refusal there.
		p.sourceBytes = p.pos - start
		p.limit = MaxJSONBytes(p.sourceBytes)
		if root >= 0 {
			// Only the first document with something in it is out: the emitter records the
			// members of each document until then.
			p.top = nil
			if withTop && s.Documents == 0 {
				p.top = &Top{}
			}
			if json := p.emitDocument(root); string(json) != "null" {
				if s.Documents++; s.Documents == 1 {
					s.JSON, s.Repeats, s.Top = json, p.repeats, p.top
					if withStrict && s.Repeats && !holdsMarker() {
						// The document is the stream, read from its start (p.base) as
						// YAMLToJSONStrict reads it; its nodes are those of this document
						// until the next one is read.
						s.Strict, s.StrictKnown = p.strictWords(root)
					}
				}
			}
		}
		if p.eof() {
			break
		}
	}
	if s.Documents == 0 {
		s.JSON = []byte("null")
	}
	return s, true
}

// strictWords is strictErrors, known false when the fast reader cannot word them.
func (p *parser) strictWords(root int32) (words error, known bool) {
	defer func() {
		if recover() != nil {
			words, known = nil, false
		}
	}()
	return p.strictErrors(root), true
}

// plainMarkerLine reports whether the line that data starts with is one the YAML reader and the
// fast reader read alike: a line that starts with "---" is a document marker that the YAML
// reader splits at and the fast reader reads as one ("---" followed by spaces and at most a
// comment after a space), and no line starts with "...", which the YAML reader does not split
// at. onlyDocument checks the stream's first line with it, and the reader each line after a
// line break that starts with '-' or '.' (newline).
func plainMarkerLine(data []byte) bool {
	line := data
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if bytes.HasPrefix(line, []byte("...")) {
		return false
	}
	if rest, marker := bytes.CutPrefix(line, []byte("---")); marker {
		rest = bytes.TrimSuffix(rest, []byte("\r"))
		if len(rest) > 0 && rest[0] != ' ' {
			return false
		}
		if trimmed := bytes.TrimLeft(rest, " "); len(trimmed) > 0 && trimmed[0] != '#' {
			return false
		}
	}
	return true
}
