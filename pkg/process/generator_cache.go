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
	"strings"
	"sync"
	"sync/atomic"
)

// Templates draw their generated values from a handful of expressions ("[a-zA-Z0-9]{16}" in
// most of the OpenShift corpus), and parsing one cost more than compiling the rest of its
// parameter: a tenth of the allocations of compiling a template. Parsed expressions are
// immutable, so one parse serves every template that writes the same text.
var (
	parsedExpressions   sync.Map // the expression's text -> *expression
	parsedExpressionsIn atomic.Int32
)

// maxParsedExpressions and maxParsedExpressionBytes bound what the cache keeps: past them,
// expressions are parsed each time, as they were without it, so that no input grows it.
const (
	maxParsedExpressions     = 512
	maxParsedExpressionBytes = 256
)

// parseExpressionOnce is parseExpression, from the cache when the same text was parsed before.
func parseExpressionOnce(from string) (*expression, error) {
	if e, ok := parsedExpressions.Load(from); ok {
		return e.(*expression), nil
	}
	e, err := parseExpression(from)
	if err != nil || len(from) > maxParsedExpressionBytes || parsedExpressionsIn.Load() >= maxParsedExpressions {
		return e, err
	}
	// A clone: from is often a substring of a whole template's text, which the cache must
	// not keep.
	if _, loaded := parsedExpressions.LoadOrStore(strings.Clone(from), e); !loaded {
		parsedExpressionsIn.Add(1)
	}
	return e, nil
}
