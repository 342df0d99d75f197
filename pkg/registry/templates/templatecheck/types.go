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

package templatecheck

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/typecheck"
)

// DefaultTypesTimeout bounds what one create or update waits for the cluster's schemas: a
// cluster that is slow to answer leaves the template unchecked rather than holding the write.
const DefaultTypesTimeout = 5 * time.Second

// Types is the type check the store makes of a Template's objects when it is written in
// cluster mode: stencil lint's (pkg/typecheck), against the kinds the cluster serves. Its
// findings are Warning headers of the create or update, or, with Refuse, its errors are a 422.
type Types struct {
	// Checker is the type check, with the cluster's schemas.
	Checker *typecheck.Checker
	// Refuse makes the findings of severity error refuse the write; warnings stay warnings.
	Refuse bool
	// Timeout bounds the check's wait for the cluster; 0 is DefaultTypesTimeout.
	Timeout time.Duration
}

// Check type-checks t's objects and returns the errors that refuse it (with Refuse) and the
// warnings to answer with, each "path: message" as stencil lint writes it. Notes (a kind no
// schema describes, a cluster that could not be asked) are logged, not answered: they say
// what was not checked, not what is wrong.
func (c *Types) Check(ctx context.Context, t *templates.Template) (field.ErrorList, []string) {
	if c == nil || c.Checker == nil {
		return nil, nil
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTypesTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	dialect := process.Stencil
	if t.OpenShift {
		dialect = process.OpenShift
	}
	res := c.Checker.Check(ctx, t, dialect)
	var errs field.ErrorList
	var warnings []string
	for _, f := range res.Findings {
		switch {
		case f.Severity == typecheck.Note:
			klog.V(2).InfoS("Template type check", "namespace", t.Namespace, "name", t.Name, "note", f.String())
		case f.Severity == typecheck.Error && c.Refuse:
			errs = append(errs, &field.Error{Type: field.ErrorTypeInvalid, Field: f.Path.String(), BadValue: field.OmitValueType{}, Detail: f.Message})
		default:
			warnings = append(warnings, f.String())
		}
	}
	if res.Omitted > 0 {
		warnings = append(warnings, fmt.Sprintf("%d more findings of the type check not listed (stencil lint --cluster lists them)", res.Omitted))
	}
	return errs, warnings
}
