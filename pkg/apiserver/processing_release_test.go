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
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// TestProcessingAnswersAreTheirOwn attacks the reuse of answered Lists (renderrest's
// ReleaseAnswer, called once an answer is written): users posting at once, each with values
// and a number of parameters and objects of their own, in every answer format the processing
// handler writes itself, must each get their own answer and nothing of another's. A List
// given back while still read, or reused without being cleared, shows here as another user's
// value or a parameter too many (and under the race detector as a race). The objects are
// padded so that every answer's List is of one of the engine's pooled size classes (4 KiB):
// the engine's List of an answer, given back once it is written (AnswerRelease), is the next
// answer's, and an answer must be the create handler's (whose bytes are never given back)
// byte for byte.
func TestProcessingAnswersAreTheirOwn(t *testing.T) {
	pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{})))
	template := func(user, round int) (string, []string) {
		var parameters, objects, want []string
		n := 1 + (user+round)%4
		pad := strings.Repeat(string(rune('a'+user)), 2400/n)
		for k := range n {
			value := fmt.Sprintf("u%d-r%d-p%d", user, round, k)
			parameters = append(parameters, fmt.Sprintf(`{"name":"P%d","value":%q}`, k, value))
			objects = append(objects, fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c-${P%d}"},"data":{"pad":%q}}`, k, pad))
			want = append(want, value)
		}
		return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},"parameters":[` +
			strings.Join(parameters, ",") + `],"objects":[` + strings.Join(objects, ",") + `]}`, want
	}
	const users, rounds = 8, 40
	request := func(user, round int) (processingCase, []string) {
		body, want := template(user, round)
		c := processingCase{contentType: "application/json", accept: "application/json", body: body}
		if round%3 == 1 {
			c.accept = "application/yaml"
		}
		if round%5 == 2 {
			c.query = "pretty=true"
		}
		return c, want
	}
	// The create handler's answers, one request at a time.
	generic := make([][]string, users)
	for user := range users {
		for round := range rounds {
			c, _ := request(user, round)
			w := httptest.NewRecorder()
			pair.generic.ServeHTTP(w, c.request(v1alpha1.SchemeGroupVersion))
			generic[user] = append(generic[user], w.Body.String())
		}
	}
	var wg sync.WaitGroup
	for user := range users {
		wg.Go(func() {
			for round := range rounds {
				c, want := request(user, round)
				w := httptest.NewRecorder()
				pair.fast.ServeHTTP(w, c.request(v1alpha1.SchemeGroupVersion))
				answer := w.Body.String()
				if w.Code != http.StatusCreated {
					t.Errorf("user %d, round %d: %d %s", user, round, w.Code, answer)
					return
				}
				if answer != generic[user][round] {
					t.Errorf("user %d, round %d: answered\n%.600s\nthe create handler answers\n%.600s", user, round, answer, generic[user][round])
				}
				for _, value := range want {
					if strings.Count(answer, value) != 2 { // the object's name and the parameter's value
						t.Errorf("user %d, round %d: %q not in the answer twice:\n%s", user, round, value, answer)
					}
				}
				if n := strings.Count(answer, "-r"); n != 2*len(want) {
					t.Errorf("user %d, round %d: %d values in the answer, want %d:\n%s", user, round, n, 2*len(want), answer)
				}
			}
		})
	}
	wg.Wait()
}
