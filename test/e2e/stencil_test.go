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
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"stencil.dev/stencil/pkg/netutil"
)

const (
	stencilNamespace = "stencil-system"
	apiServiceName   = "v1alpha1.templates.stencil.dev"
)

// deployStencil applies artifacts/deploy, starts the replicas in cluster mode with the
// ServiceAccount's identity, puts them behind a Service and waits for the APIService.
func (c *cluster) deployStencil(deployDir string, replicas int) error {
	// The Deployment and ClusterIP Service need a kubelet and kube-proxy; the suite runs the
	// replicas as local processes behind an ExternalName Service instead.
	for _, name := range []string{"00-namespace.yaml", "01-serviceaccount.yaml", "02-auth-delegator.yaml",
		"03-auth-reader.yaml", "04-clusterrole.yaml", "05-clusterrolebinding.yaml",
		"09-role-stencil-view.yaml", "10-role-stencil-edit.yaml", "11-role-stencil-process.yaml"} {
		if _, err := c.kubectl("admin", "", "apply", "-f", filepath.Join(deployDir, name)); err != nil {
			return err
		}
	}
	token, err := c.kubectl("admin", "", "create", "token", "stencil-apiserver", "-n", stencilNamespace, "--duration=24h")
	if err != nil {
		return err
	}
	if err := c.writeKubeconfig("stencil-apiserver", &clientcmdapi.AuthInfo{Token: strings.TrimSpace(token)}); err != nil {
		return err
	}

	ports, err := netutil.FreeLoopbackPorts(replicas + 1)
	if err != nil {
		return err
	}
	c.servicePort = ports[replicas]
	var backends []string
	for i := 0; i < replicas; i++ {
		name := fmt.Sprintf("stencil-apiserver-%c", 'a'+i)
		p, err := startProcess(c.logDir, name, c.bin.stencilAPIServer, c.replicaArgs(ports[i])...)
		if err != nil {
			return err
		}
		c.replicas = append(c.replicas, p)
		c.replicaPorts = append(c.replicaPorts, ports[i])
		backends = append(backends, "127.0.0.1:"+strconv.Itoa(ports[i]))
	}
	for i, p := range c.replicas {
		if err := c.waitReplicaReady(i, p); err != nil {
			return err
		}
	}
	if c.proxy, err = newServiceProxy("127.0.0.1:"+strconv.Itoa(c.servicePort), backends); err != nil {
		return err
	}
	return c.registerAPIService(filepath.Join(deployDir, "08-apiservice.yaml"))
}

func (c *cluster) replicaArgs(port int) []string {
	kubeconfig := c.kubeconfigs["stencil-apiserver"]
	return []string{
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + c.path("stencil-serving.crt"), "--tls-private-key-file=" + c.path("stencil-serving.key"),
		"--etcd-servers=" + c.etcdURL, "--etcd-prefix=/registry/stencil",
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
	}
}

// replicaURL is where replica i serves, for tests that bypass the Service.
func (c *cluster) replicaURL(i int) string {
	return "https://127.0.0.1:" + strconv.Itoa(c.replicaPorts[i])
}

func (c *cluster) waitReplicaReady(i int, p *process) error {
	config := c.restConfig("admin")
	config.CAFile = c.path("stencil-ca.crt")
	return waitFor(2*time.Minute, p.name+" ready", func(ctx context.Context) error {
		return c.readyz(ctx, config, c.replicaURL(i))
	}, p)
}

// restartReplica starts replica i again on its port after it was killed.
func (c *cluster) restartReplica(i int) error {
	if err := c.replicas[i].start(c.logDir); err != nil {
		return err
	}
	return c.waitReplicaReady(i, c.replicas[i])
}

func (c *cluster) registerAPIService(manifest string) error {
	service := fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: stencil-apiserver
  namespace: %s
spec:
  type: ExternalName
  externalName: localhost
  ports:
  - {name: https, port: %d}
`, stencilNamespace, c.servicePort)
	if _, err := c.kubectl("admin", service, "apply", "-f", "-"); err != nil {
		return err
	}
	raw, err := os.ReadFile(manifest)
	if err != nil {
		return err
	}
	caPEM, err := os.ReadFile(c.path("stencil-ca.crt"))
	if err != nil {
		return err
	}
	apiService := strings.NewReplacer(
		"CA_BUNDLE", base64.StdEncoding.EncodeToString(caPEM),
		"port: 443", "port: "+strconv.Itoa(c.servicePort),
	).Replace(string(raw))
	if _, err := c.kubectl("admin", apiService, "apply", "-f", "-"); err != nil {
		return err
	}
	return waitFor(2*time.Minute, "APIService Available", func(context.Context) error {
		out, err := c.kubectl("admin", "", "get", "apiservice", apiServiceName,
			"-o", `jsonpath={.status.conditions[?(@.type=="Available")].status} {.status.conditions[?(@.type=="Available")].message}`)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(out, "True") {
			return fmt.Errorf("APIService: %s", out)
		}
		return nil
	}, append(c.replicas, c.kubeAPIServer)...)
}
