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

// Package filters holds what the built-in transformers, the generators and the Kustomization
// bridge share to find and edit objects, as sigs.k8s.io/kustomize/api/filters and its types
// do for Kustomize's: field specs (paths in objects of a kind), selectors (patch targets),
// name references (what follows an object that is renamed), the cluster-scoped kinds, and
// patch documents (parsed, checked, and bounded in what they add). It sits between the core
// (pkg/transform) and the packages of steps; it registers nothing.
package filters
