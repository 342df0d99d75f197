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

package ui

import (
	"bytes"
	"container/list"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"sync"
)

// AnswerHeader carries, on the answer of a processing request (not a dry run) that went
// through the catalog's proxy, the id under which the catalog server keeps its objects: the
// only objects /ui/api/apply applies. The pages read it from the answer; it never leaves this
// loopback server, whose API is behind the per-run token.
const AnswerHeader = "X-Stencil-Answer"

// Bounds of the answers kept: the most recent ones, a few at a time per user, and as large as
// an apply may be.
const (
	maxAnswers      = 32
	maxAnswersBytes = 64 << 20
)

// processedPath is the path of a processing request the pages apply the answer of.
var processedPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^` + group + `/namespaces/` + name + `/templates/` + name + `/processed$`)
})

// answer is what one processing request answered: its objects, as the cluster wrote them.
type answer struct {
	id      string
	objects []json.RawMessage
	size    int
}

// answers keeps the objects of the latest processing answers by id, least recent first out.
type answers struct {
	mu    sync.Mutex
	byID  map[string]*list.Element
	order list.List
	size  int
}

func newAnswers() *answers { return &answers{byID: map[string]*list.Element{}} }

// get returns the objects answered under id.
func (s *answers) get(id string) ([]json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byID[id]
	if !ok {
		return nil, false
	}
	s.order.MoveToBack(e)
	return e.Value.(*answer).objects, true
}

// add keeps objects under a new id and returns it.
func (s *answers) add(objects []json.RawMessage, size int) (string, error) {
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return "", err
	}
	a := &answer{id: base64.RawURLEncoding.EncodeToString(secret), objects: objects, size: size}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID[a.id] = s.order.PushBack(a)
	s.size += size
	for s.order.Len() > maxAnswers || s.size > maxAnswersBytes {
		oldest := s.order.Remove(s.order.Front()).(*answer)
		delete(s.byID, oldest.id)
		s.size -= oldest.size
	}
	return a.id, nil
}

// record keeps the objects of a successful processing answer that is not a dry run, and names
// them in AnswerHeader; every other response passes as it is. An answer too large to apply
// (maxActionBody) is passed without an id.
func (s *answers) record(resp *http.Response) error {
	req := resp.Request
	if req.Method != http.MethodPost || resp.StatusCode != http.StatusCreated || req.URL.Query().Has("dryRun") ||
		!processedPath().MatchString(req.URL.Path) {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxActionBody+1))
	if err != nil {
		return err
	}
	rest := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), rest}
	if len(body) > maxActionBody {
		return nil
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if json.Unmarshal(body, &list) != nil {
		return nil
	}
	id, err := s.add(list.Items, len(body))
	if err != nil {
		return err
	}
	resp.Header.Set(AnswerHeader, id)
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}
