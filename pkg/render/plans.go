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

package render

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
)

// importsKey names the imported templates' versions, part of the plan's cache key.
func importsKey(imported []*templates.Template) string {
	if len(imported) == 0 {
		return ""
	}
	var key strings.Builder
	for _, t := range imported {
		key.WriteString("/" + string(t.UID) + "/" + t.ResourceVersion)
	}
	return key.String()
}

// planLookup is the cache key of a stored template's plan and the plan cached under it: a
// request looks it up once, for both what it charges (the cached plan knows whether the
// objects mention expansion) and the plan.
type planLookup struct {
	stored bool
	key    string
	cached *cachedPlan
}

// lookupPlan looks up the plan of t, when t is stored; importsKey names what it imports.
func (p *Renderer) lookupPlan(t *templates.Template, stored bool, importsKey string) planLookup {
	if !stored {
		return planLookup{}
	}
	// A resourceVersion names one content of one object, so a plan cached under it (and under
	// the versions of what it imports) never goes stale; an update gets a new key and the old
	// plan ages out.
	look := planLookup{stored: true, key: string(t.UID) + "/" + t.ResourceVersion + importsKey}
	if cached, ok := p.plans.get(look.key); ok {
		look.cached = cached.(*cachedPlan)
	}
	return look
}

func (p *Renderer) plan(t *templates.Template, look planLookup) (*process.Plan, field.ErrorList) {
	dialect := dialectOf(t)
	if !look.stored {
		// Compiled for this request alone: Render disposes of it once the output is made, and
		// the next such plan reuses its memory.
		return process.CompileDisposable(t, dialect)
	}
	if look.cached != nil {
		p.cacheLookup(PlanCache, true)
		return look.cached.plan, nil
	}
	p.cacheLookup(PlanCache, false)
	plan, errs := process.Compile(t, dialect)
	if len(errs) == 0 && p.plans.add(look.key, &cachedPlan{plan: plan, expands: mentionsExpansionIn(t.Objects)}, plan.Size()) {
		p.cacheEntries(PlanCache, p.plans)
	}
	return plan, errs
}

// cachedPlan is the plan of a stored template, with what a request reads of the template's
// objects besides: whether they mention template expansion (objectsExpand).
type cachedPlan struct {
	plan    *process.Plan
	expands bool
}

// objectsExpand reports whether the objects of t mention template expansion: from its cached
// plan, which holds the answer, so that a request does not scan the objects the plan holds
// again; from the objects otherwise.
func (look planLookup) objectsExpand(t *templates.Template) bool {
	if look.cached != nil {
		return look.cached.expands
	}
	return mentionsExpansionIn(t.Objects)
}
