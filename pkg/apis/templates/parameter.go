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

package templates

// Schema is the constraint keywords of a parameter, which an element or member of a json
// value shares; validation and value checks read both through it.
func (p *Parameter) Schema() JSONValueSchema {
	return JSONValueSchema{Type: p.Type, Enum: p.Enum, Pattern: p.Pattern, Minimum: p.Minimum, Maximum: p.Maximum,
		MinLength: p.MinLength, MaxLength: p.MaxLength}
}

// HasConstraints says whether any constraint keyword is set; most parameters have none, and
// compiling them then costs nothing.
func (p *Parameter) HasConstraints() bool {
	return len(p.Enum) > 0 || p.Pattern != "" || p.Minimum != nil || p.Maximum != nil || p.MinLength != nil ||
		p.MaxLength != nil || p.Items != nil || p.MaxItems != nil || len(p.Properties) > 0
}
