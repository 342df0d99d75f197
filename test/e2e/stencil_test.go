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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"stencil.dev/stencil/pkg/netutil"
)

const (
	stencilNamespace = "stencil-system"
	apiServiceName   = "v1alpha1.templates.stencil.dev"
	// servingCertSecret is where the replicas keep the certificate they make.
	servingCertSecret = "stencil-apiserver-serving-cert"
	// serviceDNSName is the name the aggregator, and the suite, check in that certificate.
	serviceDNSName = "stencil-apiserver.stencil-system.svc"
)

// deployStencil installs artifacts/deploy with kubectl apply -k, starts the replicas in cluster
// mode with the Deployment's own flags and the ServiceAccount's identity, puts them behind the
// Service and waits for the APIService to be Available with the CA the replicas wrote.
func (c *cluster) deployStencil(deployDir string, replicas int) error {
	ports, err := netutil.FreeLoopbackPorts(2*replicas + 2)
	if err != nil {
		return err
	}
	c.servicePort = ports[replicas]
	c.artifactURL = "http://127.0.0.1:" + strconv.Itoa(ports[replicas+1])
	c.artifactPorts = map[int]int{}
	var artifactBackends []string
	for i := 0; i < replicas; i++ {
		c.artifactPorts[ports[i]] = ports[replicas+2+i]
		artifactBackends = append(artifactBackends, "127.0.0.1:"+strconv.Itoa(ports[replicas+2+i]))
	}
	overlay, err := c.writeOverlay(deployDir)
	if err != nil {
		return err
	}
	if _, err := c.kubectl("admin", "", "apply", "-k", overlay); err != nil {
		return err
	}
	token, err := c.kubectl("admin", "", "create", "token", "stencil-apiserver", "-n", stencilNamespace, "--duration=24h")
	if err != nil {
		return err
	}
	if err := c.writeKubeconfig("stencil-apiserver", &clientcmdapi.AuthInfo{Token: strings.TrimSpace(token)}); err != nil {
		return err
	}
	if c.deploymentArgs, err = c.deploymentFlags(); err != nil {
		return err
	}

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
	// The replicas race to create the certificate; the suite trusts whatever CA won.
	if err := waitFor(2*time.Minute, "serving certificate Secret", func(context.Context) error {
		_, err := c.servingCA()
		return err
	}, c.replicas...); err != nil {
		return err
	}
	for i, p := range c.replicas {
		if err := c.waitReplicaReady(i, p); err != nil {
			return err
		}
	}
	if c.proxy, err = newServiceProxy("127.0.0.1:"+strconv.Itoa(c.servicePort), backends); err != nil {
		return err
	}
	if c.artifacts, err = newArtifactService(strings.TrimPrefix(c.artifactURL, "http://"), artifactBackends); err != nil {
		return err
	}
	return c.waitAPIServiceTrusted()
}

// writeOverlay writes the suite's kustomization over deployDir. There is no kubelet and no
// kube-proxy here: the Service becomes an ExternalName for localhost on the port of the suite's
// proxy, which stands in for kube-proxy, and the APIService points at that port. Nothing else
// changes; in particular no caBundle is set.
func (c *cluster) writeOverlay(deployDir string) (string, error) {
	dir := c.path("deploy-overlay")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	base, err := filepath.Rel(dir, deployDir)
	if err != nil {
		return "", err
	}
	kustomization := fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- %s
patches:
- target: {kind: Service, name: stencil-apiserver}
  patch: |
    - {op: replace, path: /spec, value: {type: ExternalName, externalName: localhost, ports: [{name: https, port: %[2]d}]}}
- target: {kind: APIService, name: %[3]s}
  patch: |
    - {op: replace, path: /spec/service/port, value: %[2]d}
`, base, c.servicePort, apiServiceName)
	return dir, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kustomization), 0o644)
}

// deploymentFlags reads the args of the Deployment as installed, with the $(VAR) references the
// kubelet would expand.
func (c *cluster) deploymentFlags() ([]string, error) {
	out, err := c.kubectl("admin", "", "get", "deployment", "stencil-apiserver", "-n", stencilNamespace, "-o", "json")
	if err != nil {
		return nil, err
	}
	var d appsv1.Deployment
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		return nil, err
	}
	container := d.Spec.Template.Spec.Containers[0]
	var pairs []string
	for _, e := range container.Env {
		switch {
		case e.ValueFrom == nil:
			pairs = append(pairs, "$("+e.Name+")", e.Value)
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			pairs = append(pairs, "$("+e.Name+")", d.Namespace)
		}
	}
	expand := strings.NewReplacer(pairs...)
	args := make([]string, len(container.Args))
	for i, a := range container.Args {
		args[i] = expand.Replace(a)
	}
	return args, nil
}

// replicaArgs are the Deployment's flags with what a pod has and a local process has not:
// loopback addresses instead of the pod's, the suite's etcd, a kubeconfig with the
// ServiceAccount's token instead of the in-cluster configuration, and the artifact server on a
// port of its own behind the suite's stand-in for the stencil-artifacts Service.
func (c *cluster) replicaArgs(port int) []string {
	kubeconfig := c.kubeconfigs["stencil-apiserver"]
	args := []string{"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port), "--etcd-servers=" + c.etcdURL,
		"--kubeconfig=" + kubeconfig, "--authentication-kubeconfig=" + kubeconfig, "--authorization-kubeconfig=" + kubeconfig}
	// A replica a test starts besides the Deployment's has no artifact server.
	if artifacts, ok := c.artifactPorts[port]; ok {
		args = append(args, "--artifact-bind-address=127.0.0.1", "--artifact-port="+strconv.Itoa(artifacts), "--artifact-url="+c.artifactURL)
	}
	for _, a := range c.deploymentArgs {
		if !strings.HasPrefix(a, "--secure-port=") && !strings.HasPrefix(a, "--etcd-servers=") &&
			!strings.HasPrefix(a, "--artifact-port=") && !strings.HasPrefix(a, "--artifact-url=") {
			args = append(args, a)
		}
	}
	return args
}

// servingCA is the CA bundle of the certificate the replicas made.
func (c *cluster) servingCA() ([]byte, error) {
	out, err := c.kubectl("admin", "", "get", "secret", servingCertSecret, "-n", stencilNamespace, "-o", `jsonpath={.data.ca\.crt}`)
	if err != nil {
		return nil, err
	}
	ca, err := base64.StdEncoding.DecodeString(out)
	if err != nil || len(ca) == 0 {
		return nil, fmt.Errorf("no ca.crt in Secret %s: %v", servingCertSecret, err)
	}
	return ca, nil
}

// replicaConfig reaches replica i directly, trusting the replicas' CA and checking the name the
// aggregator checks.
func (c *cluster) replicaConfig(i int) (*rest.Config, error) {
	ca, err := c.servingCA()
	if err != nil {
		return nil, err
	}
	config := c.restConfig("admin")
	config.Host = c.replicaURL(i)
	config.CAFile, config.CAData = "", ca
	config.ServerName = serviceDNSName
	return config, nil
}

// replicaURL is where replica i serves, for tests that bypass the Service.
func (c *cluster) replicaURL(i int) string {
	return "https://127.0.0.1:" + strconv.Itoa(c.replicaPorts[i])
}

func (c *cluster) waitReplicaReady(i int, p *process) error {
	return waitFor(2*time.Minute, p.name+" ready", func(ctx context.Context) error {
		config, err := c.replicaConfig(i)
		if err != nil {
			return err
		}
		return c.readyz(ctx, config, "")
	}, p)
}

// restartReplica starts replica i again on its port after it was killed.
func (c *cluster) restartReplica(i int) error {
	if err := c.replicas[i].start(c.logDir); err != nil {
		return err
	}
	return c.waitReplicaReady(i, c.replicas[i])
}

// waitAPIServiceTrusted waits until the APIService is Available and its caBundle is the CA the
// replicas made: the aggregator reaches them only because they wrote it.
func (c *cluster) waitAPIServiceTrusted() error {
	return waitFor(2*time.Minute, "APIService Available with the replicas' CA", func(context.Context) error {
		out, err := c.kubectl("admin", "", "get", "apiservice", apiServiceName, "-o", "json")
		if err != nil {
			return err
		}
		var apiService struct {
			Spec struct {
				CABundle []byte `json:"caBundle"`
			} `json:"spec"`
			Status struct {
				Conditions []struct{ Type, Status, Message string } `json:"conditions"`
			} `json:"status"`
		}
		if err := json.Unmarshal([]byte(out), &apiService); err != nil {
			return err
		}
		ca, err := c.servingCA()
		if err != nil {
			return err
		}
		if string(apiService.Spec.CABundle) != string(ca) {
			return fmt.Errorf("the APIService's caBundle is not the CA of Secret %s", servingCertSecret)
		}
		for _, cond := range apiService.Status.Conditions {
			if cond.Type == "Available" && cond.Status != "True" {
				return fmt.Errorf("APIService: %s %s", cond.Status, cond.Message)
			}
			if cond.Type == "Available" {
				return nil
			}
		}
		return fmt.Errorf("APIService has no Available condition yet")
	}, append(c.replicas, c.kubeAPIServer)...)
}
