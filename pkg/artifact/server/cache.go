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

package server

import (
	"container/list"
	"sync"
	"time"
)

// cache keeps the Store's last answer per instance, the least recently used dropped first once
// the bytes or the entries reach their bound. An answer of "none" is kept too (it costs no
// bytes): asking about instances that do not exist is as cheap as asking about one that does.
type cache struct {
	maxBytes   int64
	maxEntries int

	mu      sync.Mutex
	bytes   int64
	order   *list.List // of *cached, the most recently used first
	entries map[string]*list.Element
}

type cached struct {
	key     string
	stored  *Stored
	fetched time.Time
}

func newCache(maxBytes int64, maxEntries int) *cache {
	return &cache{maxBytes: maxBytes, maxEntries: maxEntries, order: list.New(), entries: map[string]*list.Element{}}
}

func size(s *Stored) int64 {
	if s == nil {
		return 0
	}
	return int64(len(s.Archive))
}

func (c *cache) get(key string) (*Stored, time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil, time.Time{}, false
	}
	c.order.MoveToFront(e)
	v := e.Value.(*cached)
	return v.stored, v.fetched, true
}

// put keeps s for key; an archive larger than the whole cache is not kept.
func (c *cache) put(key string, s *Stored, fetched time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.remove(e)
	}
	if size(s) > c.maxBytes {
		return
	}
	c.entries[key] = c.order.PushFront(&cached{key: key, stored: s, fetched: fetched})
	c.bytes += size(s)
	for c.bytes > c.maxBytes || c.order.Len() > c.maxEntries {
		c.remove(c.order.Back())
	}
}

func (c *cache) remove(e *list.Element) {
	v := e.Value.(*cached)
	c.order.Remove(e)
	delete(c.entries, v.key)
	c.bytes -= size(v.stored)
}
