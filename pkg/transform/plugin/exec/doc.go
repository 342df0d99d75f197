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

// Package exec runs exec plugins, executables the administrator installed in one directory:
// seed 000's protocol (the executable named after the config's API group) and KRM functions
// (provider exec, or provider container mapped to an executable). Each run is confined by
// pkg/sandbox, which no other package of pkg/ uses, and bounded in time and output. Policy
// says from where and with what bounds; pkg/transform/plugin decides whether exec plugins run.
package exec
