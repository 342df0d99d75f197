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

// Package kustomize is the bridge to Kustomize: the inline Kustomization transformer (apiVersion
// transform.KustomizationAPIVersion), which runs krusty over the objects on an in-memory file
// system, refusing every field that would reach outside the process, and bounds a build's cost
// before it starts (kustomize_limits.go). Register adds it to a transform.Registry.
package kustomize
