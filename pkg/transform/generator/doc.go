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

// Package generator holds the built-in generators (apiVersion builtin): ConfigMapGenerator and
// SecretGenerator, Kustomize's configMapGenerator and secretGenerator with their content given
// inline (the server reads no files). Register adds them to a transform.Registry with the pass
// that, once every transformer ran, gives what they generated Kustomize's content-hash name
// suffix and makes every reference to it follow (hash.go).
package generator
