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
	"reflect"
	"sync"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestPooledListsAreTheirOwn executes the users' templates at once, each asking for a pooled
// List and giving it back once it has compared it: each output must be the one a plan that
// shares nothing writes, and, under the race detector, no two executions touch one List.
func TestPooledListsAreTheirOwn(t *testing.T) {
	const users, rounds = 8, 30
	var wg sync.WaitGroup
	for user := range users {
		tmpl, req := userTemplate(user)
		want, _ := referenceOutput(t, tmpl, req)
		wg.Go(func() {
			plan, errs := Compile(tmpl, OpenShift)
			if len(errs) > 0 {
				t.Error(errs)
				return
			}
			reference, errs := plan.Execute(req)
			if len(errs) > 0 {
				t.Error(errs)
				return
			}
			pooled := req
			pooled.PooledList = true
			for range rounds {
				res, errs := plan.Execute(pooled)
				if len(errs) > 0 {
					t.Error(errs)
					return
				}
				if got := res.ListOf(res.Objects); !bytes.Equal(got, want) {
					t.Errorf("user %d: %.200s\nwant %.200s", user, got, want)
					return
				}
				if !reflect.DeepEqual(res.Parameters, reference.Parameters) {
					t.Errorf("user %d: parameters %+v\nwant %+v", user, res.Parameters, reference.Parameters)
					return
				}
				res.ReleaseList()
				if res.Objects != nil || res.Parameters != nil {
					t.Errorf("user %d: a released Result kept its objects or parameters", user)
				}
				res.ReleaseList() // the second time: nothing
			}
		})
	}
	wg.Wait()
}

// TestPooledListsAreReused checks that a List given back serves the next Execute (so that
// the tests that attack the reuse attack something), that a List past the bound is not kept,
// and that a Result of a Request without PooledList gives nothing back.
func TestPooledListsAreReused(t *testing.T) {
	tmpl, req := userTemplate(3)
	plan, errs := Compile(tmpl, OpenShift)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	req.PooledList = true
	reused := false
	// The pool may drop what it is given (it does at random under the race detector).
	for range 50 {
		first, _ := plan.Execute(req)
		list := first.ListOf(first.Objects)
		parameters := first.Parameters[:cap(first.Parameters)]
		first.ReleaseList()
		// The parameters' room is cleared as it goes back: it keeps no request's values.
		for i := range parameters {
			if !reflect.DeepEqual(parameters[i], templates.Parameter{}) {
				t.Fatalf("a released parameter kept %+v", parameters[i])
			}
		}
		second, _ := plan.Execute(req)
		if &second.ListOf(second.Objects)[0] == &list[0] {
			reused = true
			break
		}
	}
	if !reused {
		t.Error("a List given back was never used again")
	}

	unpooled := req
	unpooled.PooledList = false
	own, _ := plan.Execute(unpooled)
	ownList := own.ListOf(own.Objects)
	was := bytes.Clone(ownList)
	own.ReleaseList()
	if own.Objects == nil {
		t.Error("a Result of a Request without PooledList forgot its objects")
	}
	for range 20 {
		res, _ := plan.Execute(req)
		if &res.ListOf(res.Objects)[0] == &ownList[0] {
			t.Fatal("a List not from the pool was taken")
		}
		res.ReleaseList()
	}
	if !bytes.Equal(ownList, was) {
		t.Error("a List not from the pool changed")
	}

	large := takeList(maxPooledListBytes + 1)
	giveList(large, *large)
	for range 10 {
		if h := listPool.Take(maxPooledListBytes); h == large {
			t.Error("a List past the bound kept in the largest class")
		}
	}
	for _, c := range []struct{ n, class int }{{0, 0}, {1024, 0}, {1025, 1}, {2048, 1}, {maxPooledListBytes, 8}} {
		// A List of the class has at least its room, and less than the next class's.
		h := takeList(c.n)
		if size := minPooledListBytes << c.class; cap(*h) < size || cap(*h) >= 2*size {
			t.Errorf("takeList(%d): room %d, want the class of %d", c.n, cap(*h), size)
		}
	}
}

// TestPooledParametersKeepNothing takes the parameters' room for many parameters, then for
// fewer, then for many again, as requests of a large and a small template take it: each time
// it is given back, its whole room must be zero (only what was used is cleared, so a room
// written past its length would keep a request's values for the next), and each time it is
// taken, every parameter must be zero.
func TestPooledParametersKeepNothing(t *testing.T) {
	secret := templates.Parameter{Name: "PASSWORD", Value: "s3cret", Generate: "expression", From: "[a-z]{8}"}
	for range 20 {
		for _, n := range []int{40, 3, 0, 17, 40, 1} {
			room, h := takeParameters(n, true)
			for i := range room {
				if !reflect.DeepEqual(room[i], templates.Parameter{}) {
					t.Fatalf("taking %d: parameter %d holds %+v", n, i, room[i])
				}
				room[i] = secret
			}
			whole := (*h)[:cap(*h)]
			giveParameters(h)
			for i := range whole {
				if !reflect.DeepEqual(whole[i], templates.Parameter{}) {
					t.Fatalf("given back after %d: parameter %d of its room holds %+v", n, i, whole[i])
				}
			}
		}
	}
}
