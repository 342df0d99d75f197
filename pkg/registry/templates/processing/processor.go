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

// Package processing runs the engine for the API's two processing endpoints, so that both give
// the same answer for the same input.
package processing

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/utils/lru"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process"
)

// planCacheSize bounds the compiled plans kept for stored templates; a plan is about the size
// of its template.
const planCacheSize = 512

// Processor processes templates and answers with a v1 List.
type Processor struct {
	plans *lru.Cache
}

// NewProcessor returns a Processor with an empty plan cache.
func NewProcessor() *Processor {
	return &Processor{plans: lru.New(planCacheSize)}
}

// Input is one processing request.
type Input struct {
	// Template is the template to process.
	Template *templates.Template
	// Stored says the template came from storage, so its plan may be cached under its UID and
	// resourceVersion; a template given in the request is compiled for that request only.
	Stored bool
	// Request holds the caller's parameter values and labels.
	Request process.Request
}

// Process compiles (or reuses) the template's plan and executes it. Every problem comes back
// as one 422 naming its fields; warnings become API warnings.
func (p *Processor) Process(ctx context.Context, in Input) (*v1alpha1.List, error) {
	t := in.Template
	plan, errs := p.plan(t, in.Stored)
	if len(errs) > 0 {
		return nil, invalid(t, errs)
	}
	result, errs := plan.Execute(in.Request)
	if len(errs) > 0 {
		return nil, invalid(t, errs)
	}
	for _, w := range result.Warnings {
		warning.AddWarning(ctx, "", w)
	}
	return answer(result)
}

func (p *Processor) plan(t *templates.Template, stored bool) (*process.Plan, field.ErrorList) {
	dialect := process.Stencil
	if t.OpenShift {
		dialect = process.OpenShift
	}
	if !stored {
		return process.Compile(t, dialect)
	}
	// A resourceVersion names one content of one object, so a plan cached under it never goes
	// stale; an update gets a new key and the old plan ages out.
	key := string(t.UID) + "/" + t.ResourceVersion
	if cached, ok := p.plans.Get(key); ok {
		return cached.(*process.Plan), nil
	}
	plan, errs := process.Compile(t, dialect)
	if len(errs) == 0 {
		p.plans.Add(key, plan)
	}
	return plan, errs
}

func invalid(t *templates.Template, errs field.ErrorList) error {
	return apierrors.NewInvalid(templates.Kind("Template"), t.Name, errs)
}

// answer wraps the processed objects, as they are, into the v1 List the endpoints return.
func answer(result *process.Result) (*v1alpha1.List, error) {
	list := &v1alpha1.List{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"},
		Items:    make([]runtime.RawExtension, len(result.Objects)),
		Message:  result.Message,
	}
	for i, obj := range result.Objects {
		list.Items[i].Raw = obj
	}
	if len(result.Parameters) > 0 {
		list.Parameters = make([]v1alpha1.Parameter, len(result.Parameters))
	}
	for i := range result.Parameters {
		if err := v1alpha1.Convert_templates_Parameter_To_v1alpha1_Parameter(&result.Parameters[i], &list.Parameters[i], nil); err != nil {
			return nil, fmt.Errorf("converting parameter %s: %w", result.Parameters[i].Name, err)
		}
	}
	return list, nil
}
