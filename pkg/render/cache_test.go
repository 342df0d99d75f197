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
	"context"
	"fmt"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/process"
)

func TestByteCacheStaysWithinItsBudget(t *testing.T) {
	c := newByteCache(800)
	for i := range 20 {
		if !c.add(fmt.Sprint(i), i, 100) {
			t.Fatalf("entry %d of 100 bytes refused by a cache of 800", i)
		}
		if _, bytes := c.stats(); bytes > 800 {
			t.Fatalf("cache holds %d bytes, budget 800", bytes)
		}
	}
	if entries, bytes := c.stats(); entries != 8 || bytes != 800 {
		t.Fatalf("%d entries of %d bytes, want 8 of 800", entries, bytes)
	}
	// The least recently used go first: 12..19 are left; using 12 keeps it past the next add.
	if _, ok := c.get("12"); !ok {
		t.Fatal("12 was evicted too early")
	}
	c.add("20", 20, 100)
	if _, ok := c.get("12"); !ok {
		t.Error("12 was used last but evicted")
	}
	if _, ok := c.get("13"); ok {
		t.Error("13 was the least recently used but kept")
	}
	if c.add("huge", 0, 101) {
		t.Error("an entry over an eighth of the budget was cached")
	}
	c.add("20", 20, 50)
	if _, bytes := c.stats(); bytes != 750 {
		t.Errorf("replacing an entry: %d bytes, want 750", bytes)
	}
}

// TestMaxOutputBytesOption checks that the Renderer's bound applies to requests that set none.
func TestMaxOutputBytesOption(t *testing.T) {
	in := Input{Template: app(), Request: process.Request{Parameters: map[string]string{"NAME": strings.Repeat("n", 2000)}}}
	in.Template.TransformersFrom = nil
	if _, errs, err := NewRenderer(Options{}).Render(context.Background(), in); err != nil || len(errs) > 0 {
		t.Fatalf("default bound: %v %v", err, errs)
	}
	_, errs, err := NewRenderer(Options{Config: Config{MaxOutputBytes: 1000}}).Render(context.Background(), in)
	if err != nil || len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), "1000") {
		t.Fatalf("a bound of 1000 bytes: error %v, problems %v", err, errs)
	}
}
