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
	"container/list"
	"sync"
)

// byteCache is a least-recently-used cache bounded by the bytes of its entries rather than
// their number: plans range from a few hundred bytes to megabytes, so a count says nothing
// about the memory a cache pins.
type byteCache struct {
	mu      sync.Mutex
	budget  int64
	bytes   int64
	order   *list.List // front: most recently used
	entries map[string]*list.Element
}

type cacheEntry struct {
	key   string
	value any
	size  int64
}

func newByteCache(budget int64) *byteCache {
	return &byteCache{budget: budget, order: list.New(), entries: map[string]*list.Element{}}
}

// get returns the value cached under key, and marks it used.
func (c *byteCache) get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).value, true
}

// add caches value under key unless it would take more than an eighth of the budget (one huge
// template must not empty the cache for everyone else), evicting the least recently used
// entries until the cache fits its budget. It reports whether value was cached.
func (c *byteCache) add(key string, value any, size int64) bool {
	if size > c.budget/8 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		old := e.Value.(*cacheEntry)
		c.bytes += size - old.size
		old.value, old.size = value, size
		c.order.MoveToFront(e)
	} else {
		c.entries[key] = c.order.PushFront(&cacheEntry{key: key, value: value, size: size})
		c.bytes += size
	}
	for c.bytes > c.budget {
		oldest := c.order.Back()
		entry := oldest.Value.(*cacheEntry)
		c.order.Remove(oldest)
		delete(c.entries, entry.key)
		c.bytes -= entry.size
	}
	return true
}

// stats returns the number of entries and their bytes.
func (c *byteCache) stats() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.bytes
}
