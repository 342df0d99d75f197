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

package process

// ParametersPast returns the number of elements of the template's parameters array when it
// has more than bound, else 0 (also when the member is not an array, or not well formed: its
// reader says what is wrong). It counts the elements without reading them: a decoder keeps
// about 224 bytes for every parameter however small (`{}`, 2 bytes), and the API's decoder,
// which reads what the lean reader leaves to it, grows its list as it goes, 270 bytes a byte
// of a body of empty parameters. A template of more parameters than the API allows is
// refused by its count anyway; counted first, it is refused before any of them is decoded.
// An array too short to hold more than bound elements is not scanned.
func (t *TemplateJSON) ParametersPast(bound int) int {
	data := t.top.parametersJSON
	// Each element but the last takes at least two bytes with its comma.
	if len(data) < 2*bound+1 {
		return 0
	}
	s := scanner{b: data}
	s.space()
	if !s.consume('[') {
		return 0
	}
	n := 0
	for {
		s.space()
		if s.consume(']') {
			break
		}
		if n > 0 {
			if !s.consume(',') {
				return 0
			}
			s.space()
		}
		if s.skipValue(1) != nil {
			return 0
		}
		n++
	}
	if n <= bound {
		return 0
	}
	return n
}
