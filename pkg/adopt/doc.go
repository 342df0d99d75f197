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

// Package adopt is the pure logic of taking over objects another tool manages: it reads a
// Helm release record (the sh.helm.release.v1.<name>.v<revision> Secret) and a kubectl
// ApplySet parent (KEP-3659) into the objects they claim, plans per object what a
// TemplateInstance's render would change (fields changed, added and removed, immutable
// fields, objects not rendered), moves the old managers' field ownership to Stencil's field
// manager, and finds the values a release generated (a password in a live Secret) so that the
// instance keeps them. It talks to no cluster: its callers read the objects and apply the
// results, as the requester.
package adopt
