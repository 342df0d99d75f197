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

package apiserver

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// TestRecycledClasses checks the size classes of the body pools: a buffer of at least the
// size asked, none past maxRecycledBody, and only buffers of a class's size taken back.
func TestRecycledClasses(t *testing.T) {
	for size, want := range map[int64]int{1: 12, 4096: 12, 4097: 13, 64<<10 + 1: 17, maxRecycledBody: 20, maxRecycledBody + 1: -1, 0: -1, -1: -1} {
		class, ok := recycledClass(size)
		if !ok {
			class = -1
		}
		if class != want {
			t.Errorf("recycledClass(%d) = %d, want %d", size, class, want)
		}
		if buf := takeBody(size); (buf != nil) != ok || buf != nil && int64(cap(*buf)) < size {
			t.Errorf("takeBody(%d): %v", size, buf != nil)
		}
	}
	// A buffer of another size is not kept (its class would be wrong): giving it back is a
	// no-op, as is giving nil back.
	odd := make([]byte, 5000)
	giveBody(&odd)
	giveBody(nil)
	for range 10 {
		if buf := takeBody(5000); cap(*buf) != 8192 {
			t.Fatalf("a buffer of %d bytes in the class of 8 KiB", cap(*buf))
		}
	}
}

// TestRecycledBodiesAreNotShared attacks the body pools with what could make two requests
// share bytes: the bytes any handler was given (a JSON body, a YAML body converted, a YAML body
// left as it is, a body larger than its first buffer, read without a Content-Length) must not
// change while other YAML bodies of the same sizes are read after it; and a converted YAML
// body's buffer does serve the next one.
func TestRecycledBodiesAreNotShared(t *testing.T) {
	budget := renderrest.NewBudget(1<<30, 1<<29, nil)
	filler := func(c byte, n int) string { return strings.Repeat(string(c), n) }
	type handed struct{ body, copy []byte }
	var all []handed
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := bodyBytes(r)
		if !ok {
			t.Error("the body filter did not read the body")
		}
		if c := bodyConversion(r); c != nil {
			// What the processing handler decodes from.
			all = append(all, handed{c.json, bytes.Clone(c.json)})
		}
		all = append(all, handed{body, bytes.Clone(body)})
		w.WriteHeader(http.StatusCreated)
	})
	chain := bodyChain(budget, time.Minute, 3<<20, handler)
	yamlOf := func(c byte, n int) string { return "kind: Template\nvalue: " + filler(c, n) + "\n" }
	for _, body := range []struct{ contentType, data string }{
		{"application/json", `{"kind":"Template","value":"` + filler('j', 3000) + `"}`},
		{"application/yaml", yamlOf('y', 3000)},
		{"application/yaml", "kind: Template\nkind: Template\nvalue: " + filler('k', 3000) + "\n"},
		{"application/yaml; charset=utf-8", yamlOf('c', 3000)},
		{"application/yaml", yamlOf('l', 100<<10)},
	} {
		if w := post(t, chain, body.contentType, strings.NewReader(body.data)); w.Code != http.StatusCreated {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	// Without a Content-Length, the body outgrows its first buffer (64 KiB).
	r, err := http.NewRequest(http.MethodPost, "/apis/templates.stencil.dev/v1alpha1/namespaces/a/processedtemplates", io.MultiReader(strings.NewReader(yamlOf('u', 100<<10))))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/yaml")
	var w recorder
	chain.ServeHTTP(&w, r)
	if w.code != http.StatusCreated || string(all[len(all)-1].body) != fmt.Sprintf(`{"kind":"Template","value":"%s"}`, filler('u', 100<<10)) {
		t.Fatalf("a body read without a Content-Length: %d, %.80q", w.code, all[len(all)-1].body)
	}
	given := len(all)
	for i := range 50 {
		for _, n := range []int{3000, 100 << 10} {
			if w := post(t, chain, "application/yaml", strings.NewReader(yamlOf(byte('a'+i%26), n))); w.Code != http.StatusCreated {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	}
	for i, g := range all[:given] {
		if !bytes.Equal(g.body, g.copy) {
			t.Errorf("the bytes given to request %d changed after it: %.80q, were %.80q", i, g.body, g.copy)
		}
	}
	// The pools serve: a converted YAML body's buffer is the next one's (a pool may drop what
	// it is given, under the race detector a quarter of the time: a few tries).
	reused := false
	for range 20 {
		body := yamlOf('r', 3000)
		if w := post(t, chain, "application/yaml", strings.NewReader(body)); w.Code != http.StatusCreated {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		if buf := takeBody(int64(len(body) + 1)); bytes.HasPrefix(*buf, []byte(body)) {
			reused = true
			break
		}
	}
	if !reused {
		t.Error("a converted YAML body's buffer was not given back")
	}
}

// TestRecycledBodiesConcurrently reads YAML bodies of one size class from many clients at once,
// each handler checking the JSON it was given against its own body before and after the others
// ran (and, under the race detector, that no two requests touch one buffer).
func TestRecycledBodiesConcurrently(t *testing.T) {
	budget := renderrest.NewBudget(1<<30, 1<<29, nil)
	chain := bodyChain(budget, time.Minute, 3<<20, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := bodyConversion(r)
		body, ok := bodyBytes(r)
		if c == nil || !ok {
			t.Error("a YAML body not read or not converted")
			return
		}
		value := r.Header.Get("X-Value")
		want, wantBody := fmt.Sprintf(`{"kind":"Template","value":"%s"}`, value), string(body)
		if c.kept {
			// Left as YAML (a key repeated): the handler reads the YAML too.
			wantBody = "kind: Template\nkind: Template\nvalue: " + value + "\n"
		}
		for range 3 {
			if string(c.json) != want || string(body) != wantBody {
				t.Errorf("the handler was given %.60q and %.60q, want %.60q and %.60q", c.json, body, want, wantBody)
				return
			}
			time.Sleep(time.Millisecond)
		}
		w.WriteHeader(http.StatusCreated)
	}))
	var wg sync.WaitGroup
	for client := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				value := strings.Repeat(string(rune('a'+client)), 2000+i)
				head := "kind: Template\n"
				if i%2 == 1 {
					head += head // kept as YAML
				}
				r, err := http.NewRequest(http.MethodPost, "/apis/templates.stencil.dev/v1alpha1/namespaces/a/processedtemplates", strings.NewReader(head+"value: "+value+"\n"))
				if err != nil {
					t.Error(err)
					return
				}
				r.Header.Set("Content-Type", "application/yaml")
				r.Header.Set("X-Value", value)
				var w recorder
				chain.ServeHTTP(&w, r)
				if w.code != http.StatusCreated {
					t.Errorf("%d", w.code)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// recorder is an http.ResponseWriter that keeps the status.
type recorder struct {
	code   int
	header http.Header
}

func (w *recorder) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header
}
func (w *recorder) WriteHeader(code int)        { w.code = code }
func (w *recorder) Write(p []byte) (int, error) { return len(p), nil }
