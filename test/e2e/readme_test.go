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
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"stencil.dev/stencil/test/readme"
)

// readmeNamespace is the namespace of ~/.kube/config's context in the tour: a reader's is
// default, which the suite leaves to others.
const readmeNamespace = "e2e-readme"

// TestReadmeTour runs the README's tour as a reader with a cluster does: the `sh server`
// command (make run ...) in the repository, then every `sh` and `sh cluster` block in order in
// one bash, with ~/.kube/config the admin kubeconfig of this cluster, where Stencil is
// installed. Each documented output is compared (readme.Match). The cluster has no
// controller-manager or kubelet: a stand-in marks the tour's Deployments available, as they
// would be once their pods run, for stencil instantiate --wait. Flux's kustomize-controller
// runs beside it, for the tour's published instance.
func TestReadmeTour(t *testing.T) {
	needFlux(t)
	blocks, err := readme.ParseFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	server, err := readme.ServerBlock(blocks)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	checkout, err := readme.NewCheckout(repoRoot, dir)
	if err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "admin", "", "create", "namespace", readmeNamespace)
	if err := writeReaderKubeconfig(filepath.Join(checkout.Home, ".kube", "config")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go standInDeploymentController(ctx, kubeAdmin(t), readmeNamespace)

	s, err := readme.StartLocalServer(repoRoot, server, checkout, filepath.Join(env.logDir, "readme-make-run.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	session, err := readme.StartSession(checkout.Dir, checkout.Env())
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	readme.RunBlocks(t, session, blocks, readme.Local, readme.Cluster)
}

// writeReaderKubeconfig writes the admin's kubeconfig at path with readmeNamespace as its
// context's namespace.
func writeReaderKubeconfig(path string) error {
	config, err := clientcmd.LoadFromFile(env.kubeconfigs["admin"])
	if err != nil {
		return err
	}
	for _, c := range config.Contexts {
		c.Namespace = readmeNamespace
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return clientcmd.WriteToFile(*config, path)
}

// standInDeploymentController writes, until ctx ends, what the deployment controller writes
// once a Deployment's pods run: every replica updated, ready and available.
func standInDeploymentController(ctx context.Context, client kubernetes.Interface, ns string) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		list, err := client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, d := range list.Items {
			replicas := int32(1)
			if d.Spec.Replicas != nil {
				replicas = *d.Spec.Replicas
			}
			if d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == replicas {
				continue
			}
			patch := fmt.Sprintf(`{"status":{"observedGeneration":%d,"replicas":%d,"updatedReplicas":%d,"readyReplicas":%d,"availableReplicas":%d,
			  "conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable","message":"e2e stand-in"},
			                {"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable","message":"e2e stand-in"}]}}`,
				d.Generation, replicas, replicas, replicas, replicas)
			_, _ = client.AppsV1().Deployments(ns).Patch(ctx, d.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
		}
	}
}
