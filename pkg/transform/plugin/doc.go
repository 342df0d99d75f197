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

// Package plugin is the administrator's plugin policy: which providers (Starlark, exec,
// container, seed 000's exec plugins) run in a namespace, and the wire format of a config's
// provider field. A Policy compiles the configs a plugin runs for the core (it implements
// transform.Plugins) by handing them to pkg/transform/plugin/starlark or
// pkg/transform/plugin/exec, and refuses those of a provider that is off with a 422 naming
// it. It also tells pkg/render which kinds of steps a template may run (Steps), for the
// memory they may hold.
package plugin
