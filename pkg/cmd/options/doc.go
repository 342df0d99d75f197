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

// Package options holds the command-line options of processing that stencil-apiserver and the
// stencil CLI's --local processing share, one struct per concern, the k8s.io/apiserver way:
// NewXOptions holds the defaults (read from the library's DefaultConfig or DefaultLimits, never
// written again here), AddFlags binds the flags, Validate reports every invalid value at once,
// and ApplyTo writes the values into the one config struct the library takes as it is
// (render.Config, exec.Policy, plugin.PolicyFunc). It imports nothing of the server, so the
// CLI can use it without linking the API server.
package options
