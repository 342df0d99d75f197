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

// Package builtin holds Stencil's built-in transformers (apiVersion builtin), Kustomize's own
// built-in transformers as Stencil runs them on decoded objects: labels, annotations,
// namespace, name prefix and suffix, images, replicas, patches, removal of fields and the
// KubeStellar cleanup. Each lives in a file of its own, named after it; Register adds them all
// to a transform.Registry (pkg/render does), and nothing registers itself.
//
// A built-in reads its config with transform.DecodeConfig, finds the fields it edits with the
// field specs of pkg/transform/filters (its defaults, in defaults.go, are Kustomize's tables),
// and spends what it adds from the request's budget as it goes (transform.Context.Spend).
package builtin
