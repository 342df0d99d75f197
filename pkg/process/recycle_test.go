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

package process

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
)

// userTemplate is a template of one user: every literal and every value carries the user's
// mark, so that a byte of another user's plan or values in an output shows as a wrong mark.
// The users' templates differ in size, so that a reused arena or program is sometimes larger
// than needed (stale bytes past the end) and sometimes too small.
func userTemplate(user int) (*templates.Template, Request) {
	var objects strings.Builder
	objects.WriteString(`{"kind":"Template","apiVersion":"template.openshift.io/v1","metadata":{"name":"t"},"objects":[`)
	for i := range 1 + user%7 {
		if i > 0 {
			objects.WriteByte(',')
		}
		fmt.Fprintf(&objects, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"u%d-${NAME}-%d","labels":{"user":"u%d"}},"data":{"fixed":"%s","value":"${VALUE}","n":"${{COUNT}}","k-${NAME}":"x","k-dup":"y"}}`,
			user, i, user, strings.Repeat(fmt.Sprintf("u%d.", user), 1+(user*37)%200))
	}
	objects.WriteString(`],"parameters":[{"name":"NAME","value":"n"},{"name":"VALUE"},{"name":"COUNT","value":"1"}],"labels":{"owner":"u` + fmt.Sprint(user) + `"}}`)
	tmpl, _, err := DecodeTemplate([]byte(objects.String()))
	if err != nil {
		panic(err)
	}
	return tmpl, Request{Parameters: map[string]string{"VALUE": strings.Repeat(fmt.Sprintf("v%d\"", user), 1+user%5), "COUNT": fmt.Sprint(user)}}
}

// executeOnce compiles tmpl as a disposable plan, executes it and disposes of it, as
// pkg/render does for a template given in a request.
func executeOnce(tmpl *templates.Template, req Request) ([]byte, string) {
	plan, errs := CompileDisposable(tmpl, OpenShift)
	if len(errs) > 0 {
		return nil, errs.ToAggregate().Error()
	}
	defer plan.Dispose()
	res, errs := plan.Execute(req)
	if len(errs) > 0 {
		return nil, errs.ToAggregate().Error()
	}
	return res.ListOf(res.Objects), ""
}

// referenceOutput is the output of a plan that shares no memory with any other.
func referenceOutput(t *testing.T, tmpl *templates.Template, req Request) ([]byte, string) {
	plan, errs := Compile(tmpl, OpenShift)
	if len(errs) > 0 {
		return nil, errs.ToAggregate().Error()
	}
	res, errs := plan.Execute(req)
	if len(errs) > 0 {
		return nil, errs.ToAggregate().Error()
	}
	return bytes.Clone(res.ListOf(res.Objects)), ""
}

// TestDisposablePlansShareNothingBetweenUsers: users render different templates at once, each
// through disposable plans whose memory the others' plans reuse, and each output is the bytes
// of a plan of its own (a reused arena, program or value buffer shows as another user's
// bytes). The outputs are compared again once every user is done: nothing an output holds
// was given back and written over. Run under -race, it also finds memory two renders share.
func TestDisposablePlansShareNothingBetweenUsers(t *testing.T) {
	const users, rounds = 12, 40
	type kept struct {
		got, want []byte
	}
	var wg sync.WaitGroup
	results := make([][]kept, users)
	for u := range users {
		wg.Go(func() {
			tmpl, req := userTemplate(u)
			want, wantErr := referenceOutput(t, tmpl, req)
			for range rounds {
				got, err := executeOnce(tmpl, req)
				if err != wantErr || !bytes.Equal(got, want) {
					t.Errorf("user %d: got %s (%s), want %s (%s)", u, got, err, want, wantErr)
					return
				}
				results[u] = append(results[u], kept{got: got, want: want})
			}
		})
	}
	wg.Wait()
	for u := range users {
		for _, k := range results[u] {
			if !bytes.Equal(k.got, k.want) {
				t.Fatalf("user %d: an output changed after its plan was disposed of: %s", u, k.got)
			}
		}
	}
}

// TestDisposedPlanFailsWithItsOwnProblems: a plan whose Execute fails mid-way (an output past
// its limit, keys that collide once substituted) is disposed of all the same; its problems stay
// as they were when the memory is reused, and the next render is whole.
func TestDisposedPlanFailsWithItsOwnProblems(t *testing.T) {
	tmpl, req := userTemplate(3)
	want, _ := referenceOutput(t, tmpl, req)
	cut := req
	cut.MaxOutputBytes = 300
	// Two members named k-dup once substituted: found while the object is written.
	bad := Request{Parameters: map[string]string{"NAME": "dup"}}
	for _, failing := range []Request{cut, bad} {
		_, first := executeOnce(tmpl, failing)
		if first == "" {
			t.Fatalf("expected a problem with %+v", failing)
		}
		for range 5 {
			other, _ := userTemplate(5)
			executeOnce(other, Request{})
		}
		if _, again := executeOnce(tmpl, failing); again != first {
			t.Fatalf("the problem changed: %q, then %q", first, again)
		}
		if got, err := executeOnce(tmpl, req); err != "" || !bytes.Equal(got, want) {
			t.Fatalf("after a failed render: %s (%s), want %s", got, err, want)
		}
	}
}

// TestDisposePoolsNoLargeMemory: a plan compiled from a large template (one 10 MB object) and
// executed with large values gives back none of its large memory, so that one large request
// does not keep it in the pool; the compiler's scratch, sized on that object, is not pooled
// either. A small plan's memory is kept.
func TestDisposePoolsNoLargeMemory(t *testing.T) {
	big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"a":"` + strings.Repeat("x", 10<<20) + `","v":"${V}"}}`
	tmpl := &templates.Template{Parameters: []templates.Parameter{{Name: "V"}}, Objects: []runtime.RawExtension{{Raw: []byte(big)}}}
	m := &planMemory{}
	c := newCompiler(tmpl, Stencil, m)
	obj, errs := c.compileObject(tmpl.Objects[0].Raw, objectPath{"objects", 0}, true)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if !c.scratch.tooLargeToPool() {
		t.Fatalf("the scratch of a 10 MB object would be pooled: src %d, ends %d", cap(c.src), cap(c.structure.ends))
	}
	c.plan.objects = append(c.plan.objects, obj)
	c.release()
	plan := c.plan
	x := newExecutor(plan)
	x.texts = make([]byte, 0, 10<<20)
	x.values = make([]paramValue, 2000)
	x.forget()
	if cap(x.texts) > maxPooledTextBytes || cap(x.values) > maxPooledValues {
		t.Fatalf("the executor keeps %d bytes of text, room for %d values", cap(x.texts), cap(x.values))
	}
	kept := plan.forget()
	if cap(kept.arena) > maxPooledArenaBytes || cap(kept.ops) > maxPooledOps {
		t.Fatalf("the pool keeps an arena of %d bytes, %d ops", cap(kept.arena), cap(kept.ops))
	}
	if plan.forget() != nil || len(plan.ops) != 0 || plan.arena != nil {
		t.Fatal("a disposed plan still holds its program")
	}

	small, req := userTemplate(2)
	plan, errs = CompileDisposable(small, OpenShift)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, errs := plan.Execute(req); len(errs) > 0 {
		t.Fatal(errs)
	}
	arena := cap(plan.arena)
	if kept := plan.forget(); arena == 0 || cap(kept.arena) != arena {
		t.Fatalf("a small plan's arena (%d bytes) is not kept: %d", arena, cap(kept.arena))
	}
}

// TestCompileKeepsNothingOfThePool: a plan from Compile, which a cache may keep, holds no
// pooled memory and Dispose leaves it whole.
func TestCompileKeepsNothingOfThePool(t *testing.T) {
	tmpl, req := userTemplate(4)
	plan, errs := Compile(tmpl, OpenShift)
	if len(errs) > 0 || plan.memory != nil {
		t.Fatalf("%v %v", errs, plan.memory)
	}
	want, _ := referenceOutput(t, tmpl, req)
	plan.Dispose()
	res, errs := plan.Execute(req)
	if len(errs) > 0 || !bytes.Equal(res.ListOf(res.Objects), want) {
		t.Fatalf("a cached plan changed on Dispose: %v %s", errs, res.ListOf(res.Objects))
	}
}
