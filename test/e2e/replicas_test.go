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

package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

func replicaClient(t *testing.T, i int) clientset.Interface {
	config, err := env.replicaConfig(i)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := clientset.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func smallTemplate(name string) *templatesv1.Template {
	return &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Parameters: []templatesv1.Parameter{{Name: "NAME", Value: name}},
		Objects:    []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"}}`)}},
	}
}

// TestReplicasShareState writes through one replica and reads through the other: the server
// keeps no state of its own.
func TestReplicasShareState(t *testing.T) {
	ctx := context.Background()
	ns := "e2e-replicas"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	created, err := replicaClient(t, 0).TemplatesV1alpha1().Templates(ns).Create(ctx, smallTemplate("via-a"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := replicaClient(t, 1).TemplatesV1alpha1().Templates(ns).Get(ctx, "via-a", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("replica B does not see replica A's write: %v", err)
	}
	if got.UID != created.UID {
		t.Fatalf("different objects: %s vs %s", got.UID, created.UID)
	}
}

// TestNoAcknowledgedWriteLost writes through the APIService while replica A is killed with
// SIGKILL and restarted; every write that was acknowledged must be stored.
func TestNoAcknowledgedWriteLost(t *testing.T) {
	ns := "e2e-failover"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	config := env.restConfig("admin")
	config.Timeout = 10 * time.Second
	client, err := clientset.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	templates := client.TemplatesV1alpha1().Templates(ns)

	const writers, writesPerWriter = 4, 60
	var mu sync.Mutex
	acknowledged := map[string]bool{}
	failed := 0
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < writesPerWriter && ctx.Err() == nil; i++ {
				name := fmt.Sprintf("w%d-%03d", w, i)
				_, err := templates.Create(ctx, smallTemplate(name), metav1.CreateOptions{})
				mu.Lock()
				if err == nil {
					acknowledged[name] = true
				} else {
					failed++
				}
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}

	time.Sleep(500 * time.Millisecond)
	env.replicas[0].kill()
	time.Sleep(time.Second)
	if err := env.restartReplica(0); err != nil {
		t.Fatalf("restarting replica A: %v", err)
	}
	wg.Wait()

	list, err := templates.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, item := range list.Items {
		stored[item.Name] = true
	}
	lost := 0
	for name := range acknowledged {
		if !stored[name] {
			lost++
			t.Errorf("acknowledged write %s is not stored", name)
		}
	}
	t.Logf("writes: %d acknowledged, %d failed during the kill, %d stored, %d lost", len(acknowledged), failed, len(stored), lost)
	if len(acknowledged) < writers*writesPerWriter/2 {
		t.Fatalf("too few writes acknowledged to mean anything: %d", len(acknowledged))
	}
}
