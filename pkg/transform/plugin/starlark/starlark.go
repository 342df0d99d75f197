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

package starlark

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
)

// A Starlark transformer runs its script in-process over a KRM ResourceList, as Kustomize's
// Starlark runtime did: the script sees ctx.resource_list, a dict with items (the objects)
// and functionConfig (the transformer's own config, without its provider), and leaves its
// result in ctx.resource_list["items"]. Unlike Kustomize's runtime it sees nothing else: no
// environment, no OpenAPI, no load() of another file, no clock, no randomness, no file or
// network access (Starlark has none unless a host gives it), and it runs bounded (see
// starlark_guard.go).

type starlarkTransformer struct {
	name    string
	program *starlark.Program
	// Config is the transformer's config without its provider: the functionConfig.
	config transform.Object
}

// Options are what the CLI lets a Starlark provider do that the server does not.
type Options struct {
	// LocalFiles lets provider.starlark.path name a file on the local disk: the CLI's --local
	// mode, where the user runs their own files on their own machine; never on the server.
	LocalFiles bool
	// LocalDir is the template file's directory, the only one provider.starlark.path reads
	// from (see readLocalScript); empty (a template from stdin) reads no file.
	LocalDir string
}

// Factory compiles the script of a Starlark provider, given inline as source or (with
// LocalFiles) as the file at file; paths in errors are under path.
func (o Options) Factory(source, file string, path *field.Path) (transform.Factory, field.ErrorList) {
	switch {
	case source != "" && file != "":
		return nil, field.ErrorList{field.Invalid(path, "", "give source or path, not both")}
	case file != "" && !o.LocalFiles:
		return nil, field.ErrorList{field.Forbidden(path.Child("path"), "the server reads no files: give the script inline as source (path works only with stencil process --local)")}
	case file != "":
		b, err := o.readLocalScript(file)
		if err != nil {
			return nil, field.ErrorList{field.Invalid(path.Child("path"), file, err.Error())}
		}
		source = string(b)
	case source == "":
		return nil, field.ErrorList{field.Required(path.Child("source"), "")}
	}
	return func(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
		obj, err := jsonbytes.DecodeObject(config)
		if err != nil {
			return nil, field.ErrorList{field.Invalid(fldPath, "", err.Error())}
		}
		delete(obj, "provider")
		prog, err := compileStarlark(transform.NestedString(obj, "metadata", "name"), source)
		if err != nil {
			return nil, field.ErrorList{field.Invalid(path.Child("source"), "", err.Error())}
		}
		return &starlarkTransformer{name: transform.NestedString(obj, "metadata", "name"), program: prog, config: obj}, nil
	}, nil
}

// starlarkOptions allow what scripts of Kustomize's Starlark functions use (while loops,
// top-level statements, sets, reassigned globals); every loop is bounded by the step limit.
// Recursion stays off: a deep Go stack is the one thing the limits could not stop in time.
var starlarkOptions = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true}

// compileStarlark parses the script, routes its size-changing operations through the guards,
// and resolves it against the predeclared names.
func compileStarlark(name, source string) (*starlark.Program, error) {
	if strings.Contains(source, guardPrefix) {
		return nil, fmt.Errorf("names starting with %s are reserved", guardPrefix)
	}
	f, err := starlarkOptions.Parse(name+".star", source, 0)
	if err != nil {
		return nil, err
	}
	guard(f)
	return starlark.FileProgram(f, func(id string) bool { _, ok := guards[id]; return ok || id == "ctx" })
}

// Transform runs the script over the objects.
func (s *starlarkTransformer) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	limits := ctx.Limits()
	items := make([]any, len(objects))
	for i, o := range objects {
		items[i] = o
	}
	// inputBytes is what the objects take as Go values: the result may take as much again,
	// besides what the script's budget lets it make.
	inputBytes := 0
	list := starlark.NewDict(4)
	_ = list.SetKey(starlark.String("apiVersion"), starlark.String("config.kubernetes.io/v1"))
	_ = list.SetKey(starlark.String("kind"), starlark.String("ResourceList"))
	_ = list.SetKey(starlark.String("items"), toStarlark(items, &inputBytes))
	_ = list.SetKey(starlark.String("functionConfig"), toStarlark(map[string]any(s.config), &inputBytes))

	thread := &starlark.Thread{
		Name: s.name,
		Load: func(_ *starlark.Thread, module string) (starlark.StringDict, error) {
			return nil, fmt.Errorf("load(%q) is not allowed: no module is provided to Starlark transformers", module)
		},
	}
	run := &starlarkRun{thread: thread, limit: limits.StarlarkMemoryBytes, maxSteps: uint64(limits.StarlarkSteps)}
	thread.Print = func(_ *starlark.Thread, msg string) { run.print(ctx, msg) }
	run.budget = run.limit
	thread.SetLocal(runKey, run)
	thread.SetMaxExecutionSteps(run.maxSteps)
	// The run is synchronous: Transform returns when the script has stopped, and the guards
	// make it stop soon after the time is up or the request ends, whatever it was doing.
	timer := time.AfterFunc(limits.StarlarkTimeout, func() { run.stop(errStarlarkTimeout) })
	defer timer.Stop()
	if ctx.Request() != nil {
		stop := context.AfterFunc(ctx.Request(), func() { run.stop(errStarlarkEnded) })
		defer stop()
	}

	predecl := run.predeclared()
	predecl["ctx"] = starlarkstruct.FromStringDict(starlark.String("ctx"), starlark.StringDict{"resource_list": list})
	_, err := s.program.Init(thread, predecl)
	if err != nil {
		return nil, starlarkError(err, thread, limits.StarlarkTimeout)
	}
	out, ok, _ := list.Get(starlark.String("items"))
	if !ok || out == nil {
		return nil, errors.New(`the script removed ctx.resource_list["items"]`)
	}
	// Zero maxBytes is no bound.
	budget := -1
	if ctx.MaxBytes() > 0 {
		budget = ctx.MaxBytes()
	}
	conv := &conversion{output: budget, memory: add(inputBytes, max(run.budget, 0)), run: run,
		raise: func(size int) (int, bool) { ok := ctx.Raise(size); return ctx.MaxBytes(), ok }}
	converted, err := conv.value(out, 0)
	if err != nil {
		return nil, fmt.Errorf("items: %w", err)
	}
	list2, ok := converted.([]any)
	if !ok {
		return nil, errors.New(`ctx.resource_list["items"] must be a list of objects`)
	}
	result := make([]transform.Object, len(list2))
	for i, it := range list2 {
		obj, ok := it.(map[string]any)
		if !ok || transform.NestedString(obj, "kind") == "" || transform.NestedString(obj, "apiVersion") == "" {
			return nil, fmt.Errorf("items[%d] is not an object with apiVersion and kind", i)
		}
		result[i] = obj
	}
	return result, nil
}

// maxStarlarkMessage bounds a script's error in the 422: a message may quote a value.
const maxStarlarkMessage = 4 << 10

// starlarkError names the bound a run passed, or the script's own error, with the line of
// the script where it happened.
func starlarkError(err error, thread *starlark.Thread, timeout time.Duration) error {
	msg := err.Error()
	line := ""
	var evalErr *starlark.EvalError
	if errors.As(err, &evalErr) {
		msg = evalErr.Msg
		for i := len(evalErr.CallStack) - 1; i >= 0; i-- {
			if pos := evalErr.CallStack[i].Pos; pos.Line > 0 {
				line = fmt.Sprintf("line %d:%d: ", pos.Line, pos.Col)
				break
			}
		}
	}
	var memErr *starlarkMemoryError
	switch {
	case errors.As(err, &memErr):
		return fmt.Errorf("starlark: %s%w", line, memErr)
	case errors.Is(err, errStarlarkSteps) || strings.Contains(msg, "too many steps"):
		return fmt.Errorf("starlark: %s%w (%d steps)", line, errStarlarkSteps, runOf(thread).maxSteps)
	case errors.Is(err, errStarlarkTimeout) || strings.Contains(msg, errStarlarkTimeout.Error()):
		return fmt.Errorf("starlark: %s%w (%s)", line, errStarlarkTimeout, timeout)
	case errors.Is(err, errStarlarkEnded) || strings.Contains(msg, errStarlarkEnded.Error()):
		return fmt.Errorf("starlark: %w", errStarlarkEnded)
	}
	if len(msg) > maxStarlarkMessage {
		msg = msg[:maxStarlarkMessage] + "..."
	}
	return fmt.Errorf("starlark: %s%s", line, msg)
}
