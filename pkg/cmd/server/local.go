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
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/pflag"

	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// localSecurePort is where a local server listens unless --secure-port says otherwise; 443
// would need root.
const localSecurePort = 8443

// LocalOptions run the server stand-alone for development: on loopback, with etcd embedded in
// the process, a self-signed serving certificate and a kubeconfig whose client certificate is
// the only credential let in.
type LocalOptions struct {
	// Enabled turns local mode on.
	Enabled bool
	// Dir holds etcd's data, the certificates and the kubeconfig; it survives restarts.
	Dir string

	etcd *embeddedEtcd
}

// NewLocalOptions returns the defaults of local mode.
func NewLocalOptions() *LocalOptions {
	return &LocalOptions{Dir: filepath.Join("_output", "local")}
}

// AddFlags adds the local-mode flags.
func (l *LocalOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&l.Enabled, "local", l.Enabled,
		"Run stand-alone on 127.0.0.1 with an embedded etcd (or the etcd of --etcd-servers, when given), a "+
			"self-signed certificate and a generated kubeconfig (no cluster needed). Delegated authentication, "+
			"authorization and admission are off; only the generated kubeconfig's client certificate is allowed in.")
	fs.StringVar(&l.Dir, "local-dir", l.Dir, "Directory of local mode's etcd data, certificates and kubeconfig.")
}

// Validate reports invalid local options.
func (l *LocalOptions) Validate() []error {
	if l.Enabled && l.Dir == "" {
		return []error{fmt.Errorf("--local-dir must not be empty")}
	}
	return nil
}

// KubeconfigPath is where local mode writes the kubeconfig for kubectl and stencil.
func (l *LocalOptions) KubeconfigPath() string { return filepath.Join(l.Dir, "kubeconfig") }

func (l *LocalOptions) certDir() string { return filepath.Join(l.Dir, "certs") }

// Complete makes the recommended options stand-alone: no core cluster, no admission plugins,
// no priority and fairness (they all need a kube-apiserver), client certificates signed by the
// local CA for authentication, and only system:masters authorized.
func (l *LocalOptions) Complete(ro *genericoptions.RecommendedOptions) error {
	dir, err := filepath.Abs(l.Dir)
	if err != nil {
		return err
	}
	l.Dir = dir
	if err := os.MkdirAll(l.certDir(), 0o700); err != nil {
		return err
	}

	ro.CoreAPI = nil
	ro.Admission = nil
	ro.Features.EnablePriorityAndFairness = false

	if ro.SecureServing.BindPort == 443 {
		ro.SecureServing.BindPort = localSecurePort
	}
	ro.SecureServing.BindAddress = net.ParseIP("127.0.0.1")
	ro.SecureServing.ServerCert.CertDirectory = l.certDir()

	clientCAFile, err := ensureClientCertificates(l.certDir())
	if err != nil {
		return fmt.Errorf("creating local client certificates: %w", err)
	}
	ro.Authentication.ClientCert.ClientCA = clientCAFile
	ro.Authentication.RemoteKubeConfigFileOptional = true
	ro.Authentication.SkipInClusterLookup = true
	ro.Authorization.RemoteKubeConfigFileOptional = true

	if len(ro.Etcd.StorageConfig.Transport.ServerList) > 0 {
		// An etcd of the user's own, reached with the --etcd-* flags as given: one shared by
		// several local servers, or, in the reliability suite, one that a test can pause
		// without pausing the server.
		return nil
	}
	etcdTLS, err := ensureEtcdCertificates(l.certDir())
	if err != nil {
		return fmt.Errorf("creating local etcd certificates: %w", err)
	}
	l.etcd, err = newEmbeddedEtcd(filepath.Join(l.Dir, "etcd"), etcdTLS, ro.SecureServing.BindPort)
	if err != nil {
		return err
	}
	ro.Etcd.StorageConfig.Transport.ServerList = []string{l.etcd.clientURL()}
	ro.Etcd.StorageConfig.Transport.TrustedCAFile = etcdTLS.ca
	ro.Etcd.StorageConfig.Transport.CertFile = etcdTLS.clientCert
	ro.Etcd.StorageConfig.Transport.KeyFile = etcdTLS.clientKey
	return nil
}

// Start starts the embedded etcd, if there is one; the returned function stops it.
func (l *LocalOptions) Start(ctx context.Context) (func(), error) {
	if l.etcd == nil {
		return func() {}, nil
	}
	if err := l.etcd.start(ctx); err != nil {
		return nil, err
	}
	return l.etcd.stop, nil
}

func (l *LocalOptions) serverAddress(ro *genericoptions.RecommendedOptions) string {
	return net.JoinHostPort(ro.SecureServing.BindAddress.String(), strconv.Itoa(ro.SecureServing.BindPort))
}

// WriteKubeconfig writes a kubeconfig that trusts the serving certificate's CA and logs in with
// the local administrator's client certificate.
func (l *LocalOptions) WriteKubeconfig(ro *genericoptions.RecommendedOptions) error {
	servingChain, err := os.ReadFile(ro.SecureServing.ServerCert.CertKey.CertFile)
	if err != nil {
		return err
	}
	servingCA, err := trustAnchors(servingChain)
	if err != nil {
		return err
	}
	adminCert, err := os.ReadFile(filepath.Join(l.certDir(), adminCertFile))
	if err != nil {
		return err
	}
	adminKey, err := os.ReadFile(filepath.Join(l.certDir(), adminKeyFile))
	if err != nil {
		return err
	}
	const name = "stencil-local"
	config := clientcmdapi.NewConfig()
	config.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   "https://" + l.serverAddress(ro),
		CertificateAuthorityData: servingCA,
	}
	config.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: adminCert, ClientKeyData: adminKey}
	config.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	config.CurrentContext = name
	return clientcmd.WriteToFile(*config, l.KubeconfigPath())
}
