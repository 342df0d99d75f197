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

package reliability

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKill9KeepsAcknowledgedCreates kills the server with SIGKILL while 16 clients create
// templates, restarts it on the same directory, and finds every create it acknowledged, in
// each of several rounds. Local mode's etcd runs in the server's process, so it dies with it:
// what an acknowledgement promises is that etcd had written it to its log.
func TestKill9KeepsAcknowledgedCreates(t *testing.T) {
	const clients = 16
	s := startServer(t, t.TempDir())
	var acknowledged []string
	for round := range settings.killRounds {
		ctx, cancel := context.WithCancel(context.Background())
		var (
			mu    sync.Mutex
			acked []string
			count atomic.Int64
			wg    sync.WaitGroup
		)
		enough := make(chan struct{})
		var once sync.Once
		for c := range clients {
			cs := s.client(t).TemplatesV1alpha1().Templates("kill")
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Each client stops at its first failure: the kill, or the end of the round.
				for n := 0; n < 10*settings.acksPerRound && ctx.Err() == nil; n++ {
					name := fmt.Sprintf("r%d-c%d-%d", round, c, n)
					if _, err := cs.Create(ctx, newTemplate(name), metav1.CreateOptions{}); err != nil {
						return
					}
					mu.Lock()
					acked = append(acked, name)
					mu.Unlock()
					if count.Add(1) >= int64(settings.acksPerRound) {
						once.Do(func() { close(enough) })
					}
				}
			}()
		}
		select {
		case <-enough:
		case <-time.After(2 * time.Minute):
			t.Fatalf("round %d: %d of %d creates acknowledged in two minutes", round, count.Load(), settings.acksPerRound)
		}
		// The clients are still sending: the kill lands in the middle of creates.
		if err := s.Kill(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		cancel()
		acknowledged = append(acknowledged, acked...)

		if err := s.start(); err != nil {
			s.dumpLog(t)
			t.Fatalf("round %d: restart: %v", round, err)
		}
		list, err := s.client(t).TemplatesV1alpha1().Templates("kill").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		present := make(map[string]bool, len(list.Items))
		for _, item := range list.Items {
			present[item.Name] = true
		}
		var lost []string
		for _, name := range acknowledged {
			if !present[name] {
				lost = append(lost, name)
			}
		}
		t.Logf("round %d: %d creates acknowledged so far, %d present after SIGKILL and restart (%d stored in all); ready %v after the restart",
			round, len(acknowledged), len(acknowledged)-len(lost), len(list.Items), s.Ready.Round(time.Millisecond))
		if len(lost) > 0 {
			t.Fatalf("round %d: %d acknowledged creates lost, such as %v", round, len(lost), lost[:min(len(lost), 5)])
		}
	}
}
