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
	"slices"
	"testing"
)

// TestEtcdPortsAvoidTheServers: the ports the embedded etcd is given are never the server's
// own, however often the free ports offered include it (the kernel hands out a port a test
// chose for the server, and closed, again); when it offers nothing else, the start fails with
// words, not with the server's "address already in use" later.
func TestEtcdPortsAvoidTheServers(t *testing.T) {
	offers := [][]int{{6443, 2380}, {2379, 6443}, {2379, 2380}}
	ports, err := etcdPorts(6443, func(n int) ([]int, error) {
		offer := offers[0]
		offers = offers[1:]
		return offer, nil
	})
	if err != nil || !slices.Equal(ports, []int{2379, 2380}) {
		t.Fatalf("etcdPorts: %v, %v; want [2379 2380]", ports, err)
	}
	if _, err := etcdPorts(6443, func(int) ([]int, error) { return []int{6443, 6443}, nil }); err == nil {
		t.Fatal("only the server's port on offer: no error")
	}
}
