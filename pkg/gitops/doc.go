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

// Package gitops renders a render file (a TemplateRender kept in git beside its template) the
// way a GitOps tool must: every file it reads stays inside the application's directory, the
// values of the file, its values files and the tool's parameters merge in one order, the build
// environment reaches the render only through the variables it names, a generated value is
// the same on every render of the same inputs, an empty render is an error, and every object
// carries the digest of the render. The engine is pkg/render's, called as stencil process
// --local calls it, so the objects are the ones that command prints for the same template and
// values. Problems come back as Problems: each at a field path of the file it is about, which
// the CLI writes as FILE:LINE:COL: error: lines.
//
// Subpackage argocd speaks Argo CD's side of a Config Management Plugin: parameters from
// ARGOCD_APP_PARAMETERS and PARAM_*, and announcements for the Parameters tab.
package gitops
