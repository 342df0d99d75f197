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
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"stencil.dev/stencil/pkg/certs"
	"stencil.dev/stencil/pkg/netutil"
)

// binaries are the programs the suite runs.
type binaries struct {
	kubeAPIServer, kubeControllerManager, kubectl, etcd, stencilAPIServer, kubectlStencil string
	// helmDriver drives the Helm v4 library (hack/helm-tools).
	helmDriver string
}

// cluster is an etcd, a kube-apiserver with the aggregation layer configured, and Stencil
// replicas in cluster mode behind a Service registered as an APIService.
type cluster struct {
	bin    binaries
	dir    string // certificates, kubeconfigs, data
	logDir string // every process's output

	etcd, kubeAPIServer *process
	// controllerManager runs the controllers of controllerManagerControllers while a test
	// that needs them runs (useControllerManager).
	controllerManager *process
	replicas          []*process
	replicaPorts      []int
	// deploymentArgs are the flags of the installed Deployment, as the kubelet would pass them.
	deploymentArgs []string
	proxy          *serviceProxy
	// artifactPorts are the replicas' artifact servers' ports by API port, behind artifacts at
	// artifactURL: the stencil-artifacts Service of the Deployment.
	artifactPorts map[int]int
	artifacts     *artifactService
	artifactURL   string

	etcdURL, kubeURL string
	servicePort      int
	kubeCA           *certs.KeyPair
	// kubeconfigs by user: admin (system:masters) and the token users of tokens.csv.
	kubeconfigs map[string]string
}

// tokenUsers are the non-admin users of the RBAC tests, with their bearer tokens.
var tokenUsers = map[string]string{
	"processor": "processor-token",
	"viewer":    "viewer-token",
	"nobody":    "nobody-token",
	"reader":    "reader-token",
	// editor has edit in the TemplateInstance tests' namespace; limited may write no Secret.
	"editor":  "editor-token",
	"limited": "limited-token",
	// exporter runs an application in the namespaces of TestExport; nosecrets reads it without
	// Secrets.
	"exporter":  "exporter-token",
	"nosecrets": "nosecrets-token",
	// ui-user runs the catalog in TestCatalogUICreates.
	"ui-user": "ui-user-token",
	// mallory has edit in one namespace and tries to act through an admin's TemplateInstance.
	"mallory": "mallory-token",
	// owner instantiates in TestTemplateRevisionsAndPreview; planner previews there, may create
	// and patch the objects but not read Secrets.
	"owner":   "owner-token",
	"planner": "planner-token",
	// roller edits and rolls out a Template in TestTemplateRollout, rollerb in another
	// namespace; watcher has only view there.
	"roller":  "roller-token",
	"rollerb": "rollerb-token",
	"watcher": "watcher-token",
	// adopter runs a Helm release and an ApplySet in TestAdopt's namespace and adopts them;
	// adopter-limited may create instances there but patch no Deployment; intruder has edit
	// in another namespace only.
	"adopter":         "adopter-token",
	"adopter-limited": "adopter-limited-token",
	"intruder":        "intruder-token",
	"eve":             "eve-token",
	"ivan":            "ivan-token",
	// pauser may write Templates, nothing else, in TestRolloutChangesAreAuthored.
	"pauser": "pauser-token",
	// ui-viewer may read a Template whose rollout ui-roller may pause, resume and undo, in
	// TestCatalogUIRollout.
	"ui-viewer": "ui-viewer-token",
	"ui-roller": "ui-roller-token",
}

// auditPolicy records who wrote the ConfigMaps of the TemplateInstance tests, and every write
// in the adoption tests' namespaces (a second adoption writes nothing), and nothing else:
// the proof that the controller wrote them as the requester; and every write of the
// namespaces, ClusterRoles and ClusterRoleBindings of TestTemplateInstanceConfusedDeputy: the
// proof that its attacks wrote nothing.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  namespaces: [e2e-instances, e2e-instances-local, openshift-compat-instances, e2e-unchanged]
  resources: [{group: "", resources: [configmaps, secrets]}]
  verbs: [create, patch]
- level: Metadata
  namespaces: [e2e-deputy, e2e-deputy-other]
  resources: [{group: "", resources: [configmaps, secrets]}]
  verbs: [create, patch, update, delete, deletecollection]
- level: Metadata
  resources: [{group: rbac.authorization.k8s.io, resources: [clusterroles, clusterrolebindings]}]
  verbs: [create, patch, update, delete, deletecollection]
- level: Metadata
  namespaces: [e2e-adopt, e2e-adopt-set]
  resources: [{group: ""}, {group: apps}]
  verbs: [create, patch, update, delete, deletecollection]
- level: None
`

func (c *cluster) path(name string) string { return filepath.Join(c.dir, name) }

// makePKI writes every certificate the cluster needs.
func (c *cluster) makePKI() error {
	var err error
	if c.kubeCA, err = certs.NewCA("e2e-kube-ca"); err != nil {
		return err
	}
	frontProxyCA, err := certs.NewCA("e2e-front-proxy-ca")
	if err != nil {
		return err
	}
	loopback := []net.IP{net.ParseIP("127.0.0.1")}
	pairs := []struct {
		name   string
		issuer *certs.KeyPair
		req    certs.Request
	}{
		{"kube-apiserver", c.kubeCA, certs.Request{CommonName: "kube-apiserver", DNSNames: []string{"localhost", "kubernetes.default.svc"}, IPs: loopback}},
		{"admin", c.kubeCA, certs.Request{CommonName: "e2e-admin", Organizations: []string{"system:masters"}}},
		// kube-controller-manager has an identity of its own, so that audit events tell its
		// writes from the tests'.
		{"kube-controller-manager", c.kubeCA, certs.Request{CommonName: "system:kube-controller-manager", Organizations: []string{"system:masters"}}},
		{"front-proxy-client", frontProxyCA, certs.Request{CommonName: "front-proxy-client"}},
	}
	for _, p := range pairs {
		kp, err := p.issuer.Sign(p.req)
		if err != nil {
			return err
		}
		if err := kp.Write(c.dir, p.name); err != nil {
			return err
		}
	}
	for name, ca := range map[string]*certs.KeyPair{"kube-ca": c.kubeCA, "front-proxy-ca": frontProxyCA} {
		if err := ca.Write(c.dir, name); err != nil {
			return err
		}
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.path("sa.key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)}), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(c.path("sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub}), 0o600); err != nil {
		return err
	}
	var tokens strings.Builder
	for user, token := range tokenUsers {
		fmt.Fprintf(&tokens, "%s,%s,%s-uid\n", token, user, user)
	}
	if err := os.WriteFile(c.path("tokens.csv"), []byte(tokens.String()), 0o600); err != nil {
		return err
	}
	return os.WriteFile(c.path("audit-policy.yaml"), []byte(auditPolicy), 0o600)
}

func (c *cluster) startEtcd() error {
	ports, err := netutil.FreeLoopbackPorts(2)
	if err != nil {
		return err
	}
	c.etcdURL = "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	c.etcd, err = startProcess(c.logDir, "etcd", c.bin.etcd,
		"--name=e2e", "--data-dir="+c.path("etcd-data"), "--log-level=warn",
		"--listen-client-urls="+c.etcdURL, "--advertise-client-urls="+c.etcdURL,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer, "--initial-cluster=e2e="+peer)
	if err != nil {
		return err
	}
	return waitFor(time.Minute, "etcd healthy", func(ctx context.Context) error {
		resp, err := http.Get(c.etcdURL + "/health")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}, c.etcd)
}

func (c *cluster) startKubeAPIServer() error {
	ports, err := netutil.FreeLoopbackPorts(1)
	if err != nil {
		return err
	}
	c.kubeURL = "https://127.0.0.1:" + strconv.Itoa(ports[0])
	c.kubeAPIServer, err = startProcess(c.logDir, "kube-apiserver", c.bin.kubeAPIServer,
		"--etcd-servers="+c.etcdURL,
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[0]),
		"--tls-cert-file="+c.path("kube-apiserver.crt"), "--tls-private-key-file="+c.path("kube-apiserver.key"),
		"--client-ca-file="+c.path("kube-ca.crt"),
		"--token-auth-file="+c.path("tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+c.path("sa.pub"),
		"--service-account-signing-key-file="+c.path("sa.key"),
		"--service-cluster-ip-range=10.96.0.0/24",
		"--audit-policy-file="+c.path("audit-policy.yaml"),
		"--audit-log-path="+c.path("audit.log"),
		// The aggregation layer: kube-apiserver proxies to Stencil as front-proxy-client and
		// says who the user is in these headers.
		"--requestheader-client-ca-file="+c.path("front-proxy-ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file="+c.path("front-proxy-client.crt"),
		"--proxy-client-key-file="+c.path("front-proxy-client.key"),
	)
	if err != nil {
		return err
	}
	c.kubeconfigs = map[string]string{}
	for _, user := range []string{"admin", "kube-controller-manager"} {
		if err := c.writeKubeconfig(user, &clientcmdapi.AuthInfo{
			ClientCertificate: c.path(user + ".crt"), ClientKey: c.path(user + ".key")}); err != nil {
			return err
		}
	}
	for user, token := range tokenUsers {
		if err := c.writeKubeconfig(user, &clientcmdapi.AuthInfo{Token: token}); err != nil {
			return err
		}
	}
	return waitFor(2*time.Minute, "kube-apiserver ready", func(ctx context.Context) error {
		return c.readyz(ctx, c.restConfig("admin"), "")
	}, c.kubeAPIServer)
}

func (c *cluster) writeKubeconfig(user string, auth *clientcmdapi.AuthInfo) error {
	config := clientcmdapi.NewConfig()
	config.Clusters["e2e"] = &clientcmdapi.Cluster{Server: c.kubeURL, CertificateAuthority: c.path("kube-ca.crt")}
	config.AuthInfos[user] = auth
	config.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: user, Namespace: "default"}
	config.CurrentContext = "e2e"
	path := c.path(user + ".kubeconfig")
	c.kubeconfigs[user] = path
	return clientcmd.WriteToFile(*config, path)
}

func (c *cluster) restConfig(user string) *rest.Config {
	config, err := clientcmd.BuildConfigFromFlags("", c.kubeconfigs[user])
	if err != nil {
		panic(err)
	}
	config.QPS, config.Burst = 500, 500
	return config
}

// readyz asks a server's /readyz; host overrides the server address of config.
func (c *cluster) readyz(ctx context.Context, config *rest.Config, host string) error {
	if host != "" {
		config = rest.CopyConfig(config)
		config.Host = host
	}
	client, err := rest.HTTPClientFor(config)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(config.Host, "/")+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz answered %d", resp.StatusCode)
	}
	return nil
}

func (c *cluster) stop() {
	if c.proxy != nil {
		c.proxy.close()
	}
	if c.artifacts != nil {
		c.artifacts.close()
	}
	for _, r := range c.replicas {
		r.stop()
	}
	if c.controllerManager != nil {
		c.controllerManager.stop()
	}
	if c.kubeAPIServer != nil {
		c.kubeAPIServer.stop()
	}
	if c.etcd != nil {
		c.etcd.stop()
	}
}
