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

package renderrest

import "context"

// carrier is a context carrying value under the key K (an empty struct type of this package),
// as context.WithValue's would: the parent's in every way but for that key. It lives in memory
// its owner already has (a request's Hold, its AnswerRelease), where context.WithValue would
// be an allocation a request of its own.
type carrier[K comparable, V any] struct {
	context.Context
	value V
}

func (c *carrier[K, V]) Value(key any) any {
	var own K
	if key == any(own) {
		return c.value
	}
	return c.Context.Value(key)
}
