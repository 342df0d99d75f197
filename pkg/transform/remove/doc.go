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

// Package remove deletes fields from objects: the JSONPath subset that names them, the removal
// rules of CustomTransforms (RuleFor builds one, ApplyRules applies them) and the path checks
// (ParsePaths) that both they and the RemoveTransformer built-in use. It is a pure library: it
// imports nothing from the server, nor from the transformer pipeline.
//
// The RemoveTransformer built-in lives in pkg/transform/builtin with the other built-ins: there
// it is a thin shell that reads its config and its target and calls Path.RemoveFrom, so that
// removal lives in one place and this package depends on no transformer package.
//
// Paths are KubeStellar's JSONPath subset, extended with wildcards and array indexes. A path
// is "$" followed by one or more segments:
//
//	.name      member-name-shorthand, exactly as RFC 9535 section 2.5.1.1 defines it
//	["name"]   a double-quoted string literal with RFC 9535's escapes and no others
//	[*]        every member of an object or element of an array (Stencil extension)
//	[N]        array element N; negative N counts from the end (Stencil extension)
//
// No whitespace is allowed anywhere, as in KubeStellar. Unlike KubeStellar, which decodes
// strings with a JavaScript parser, only RFC 9535 escapes are accepted, so `["\x41"]` is an
// error rather than a second spelling of `.A`. "$" alone is rejected: a removal must never
// name the whole object.
package remove
