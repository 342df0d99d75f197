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

package templateinstance

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
)

// reasonArgs are the functions that write a condition reason, and which argument holds it:
// the controller's fail and setConditions, and the pass library's Fail (instance.Fail here).
var reasonArgs = map[string]int{"fail": 0, "setConditions": 2, "Fail": 0}

// writtenReasons reads the source of the package, of the pass library and of the publisher
// (whose failures the controller writes) for every reason it can write to an instance's conditions: the literal
// reason of each call to fail, Fail and setConditions. A reason that is not a literal is
// reported, so that none escapes the table test.
func writtenReasons(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	library, err := filepath.Glob("../instance/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, library...)
	// The publisher decides some refusals of a published instance (publish.Split).
	publishing, err := filepath.Glob("../publish/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, publishing...)
	reasons := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn *ast.Ident
			switch f := call.Fun.(type) {
			case *ast.Ident:
				fn = f
			case *ast.SelectorExpr:
				fn = f.Sel
			default:
				return true
			}
			i, ok := reasonArgs[fn.Name]
			if !ok || len(call.Args) <= i {
				return true
			}
			lit, ok := call.Args[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: the reason of %s is not a string literal; the reasons test cannot find it", fset.Position(call.Pos()), fn.Name)
				return true
			}
			reason, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			reasons[reason] = true
			return true
		})
	}
	return reasons
}

// TestEveryReasonIsTested: each reason the controller can write is driven by a case of
// TestReasons (or, for uninstall, TestUninstallReasons), so a new reason without a test fails.
func TestEveryReasonIsTested(t *testing.T) {
	written := writtenReasons(t)
	if len(written) < 15 {
		t.Fatalf("found only %d reasons in the source; is the search broken? %v", len(written), written)
	}
	tested := map[string]bool{}
	for _, tc := range append(append(append(reasonCases(), uninstallReasonCases()...), publishedReasonCases()...), adoptionReasonCases()...) {
		for _, r := range tc.reasons {
			tested[r] = true
		}
	}
	var missing, unknown []string
	for r := range written {
		if !tested[r] {
			missing = append(missing, r)
		}
	}
	for r := range tested {
		if !written[r] {
			unknown = append(unknown, r)
		}
	}
	sort.Strings(missing)
	sort.Strings(unknown)
	if len(missing) > 0 {
		t.Errorf("reasons the controller writes that no case drives it into: %v", missing)
	}
	if len(unknown) > 0 {
		t.Errorf("cases expect reasons the source never writes: %v", unknown)
	}
}

// reasonCase drives one sync of instance demo/shop into a reason.
type reasonCase struct {
	name string
	// objects are in this server's API, live in the target cluster.
	objects, live []runtime.Object
	deny          func(authorizer.Attributes) bool
	selfReview    bool
	// publishing, when set, lets the controller publish renders with these limits.
	publishing *artifact.Limits
	// setup adds reactors to the fakes.
	setup func(f *fixture)
	// reasons are the Ready reasons of the statuses written, in order; message is part of the
	// last one's message.
	reasons []string
	message string
	// requeue is the delay a pass that did not fail asks for.
	requeue time.Duration
	// check looks at the outcome beyond the conditions.
	check func(t *testing.T, f *fixture)
}

// passing are the reasons of passes that did not fail.
var passing = map[string]bool{"Applying": true, "Ready": true, "NotReady": true, "Pruning": true, "Deleting": true,
	"Publishing": true, "NoKustomization": true, "KustomizationNotReady": true}

func (tc reasonCase) run(t *testing.T) {
	f := (&fixture{t: t, objects: tc.objects, live: tc.live, deny: tc.deny, selfReview: tc.selfReview, publishing: tc.publishing}).build()
	if tc.setup != nil {
		tc.setup(f)
	}
	requeue, err := f.sync("shop")
	if got := f.statusReasons(); joined(got) != joined(tc.reasons) {
		t.Fatalf("statuses written with reasons\n%s\nwant\n%s\n(error %v; %s)", joined(got), joined(tc.reasons), err, lastCondition(f.instance("shop"), templatesv1.TemplateInstanceFailed).Message)
	}
	ti := f.instance("shop")
	ready, failed := lastCondition(ti, templatesv1.TemplateInstanceReady), lastCondition(ti, templatesv1.TemplateInstanceFailed)
	t.Logf("%s: %s", ready.Reason, ready.Message)
	if !strings.Contains(ready.Message, tc.message) {
		t.Errorf("message %q does not say %q", ready.Message, tc.message)
	}
	last := tc.reasons[len(tc.reasons)-1]
	if passing[last] {
		if err != nil || requeue != tc.requeue {
			t.Errorf("sync: %v, %v; want nil, %v", requeue, err, tc.requeue)
		}
		if failed.Status != metav1.ConditionFalse {
			t.Errorf("Failed is %s after a pass that did not fail", failed.Status)
		}
	} else {
		if !errors.Is(err, errRetry) {
			t.Errorf("sync: %v; a failure is retried with backoff", err)
		}
		if failed.Status != metav1.ConditionTrue || failed.Reason != last || ti.Status.ObservedGeneration != ti.Generation {
			t.Errorf("Failed %s %s, observed generation %d: want True %s, %d", failed.Status, failed.Reason, ti.Status.ObservedGeneration, last, ti.Generation)
		}
	}
	if tc.check != nil {
		tc.check(t, f)
	}
}
