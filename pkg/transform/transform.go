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

// Package transform runs the ordered pipeline of transformers over processed objects. It is a
// pure library: it imports nothing from the server.
//
// Objects are decoded once for the whole pipeline (numbers as json.Number, so integers keep
// their precision), every transformer edits that tree, and the result is encoded once. A
// template without transformers never reaches this package.
package transform

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Object is one Kubernetes object in the pipeline, as decoded by DecodeObjects.
type Object = map[string]any

// Context carries what a transformer reports besides its result.
type Context struct {
	warnings []string
}

// Warnf records a warning; the server returns warnings as API warnings.
func (c *Context) Warnf(format string, args ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

// Warnings returns the warnings recorded so far.
func (c *Context) Warnings() []string { return c.warnings }

// Transformer changes a list of objects. It may edit the objects in place, and it may drop,
// add or reorder them by returning a different slice.
type Transformer interface {
	Transform(ctx *Context, objects []Object) ([]Object, error)
}

// Factory builds a transformer from its config object (JSON, parameters already substituted),
// reporting every problem of the config with paths under fldPath.
type Factory func(config []byte, fldPath *field.Path) (Transformer, field.ErrorList)

// builtins maps the kind of an apiVersion: builtin transformer to its factory.
var builtins = map[string]Factory{}

// registerBuiltin is called from the init function of each built-in's file.
func registerBuiltin(kind string, factory Factory) {
	if _, dup := builtins[kind]; dup {
		panic("transform: built-in registered twice: " + kind)
	}
	builtins[kind] = factory
}

// BuiltinKinds lists the kinds of the built-in transformers.
func BuiltinKinds() []string {
	kinds := make([]string, 0, len(builtins))
	for k := range builtins {
		kinds = append(kinds, k)
	}
	return kinds
}
