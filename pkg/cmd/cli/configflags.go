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

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/homedir"

	stencilclient "stencil.dev/stencil/pkg/client"
)

// ConfigFlags are kubectl's flags that say which server, user and namespace to use, with the
// same names, words and meaning as cli-runtime's genericclioptions.ConfigFlags. They are not
// that type because it links client-go's discovery and cli-runtime's resource builder, and
// through them client-go's kubernetes/scheme, which registers every Kubernetes type when the
// program starts (docs/performance.md: the CLI's start-up). The discovery they give is
// Stencil's own (stencilclient.Discovery), read once a process.
type ConfigFlags struct {
	kubeConfig, cacheDir, certFile, keyFile, bearerToken            string
	impersonate, impersonateUID, clusterName, authInfoName, context string
	namespace, apiServer, tlsServerName, caFile, timeout, proxyURL  string
	impersonateGroups, impersonateExtra                             []string
	insecure, disableCompression                                    bool

	once   sync.Once
	loader clientcmd.ClientConfig

	mapperOnce sync.Once
	mapper     *stencilclient.Mapper
	mapperErr  error
}

// errEmptyConfig is kubectl's words for no kubeconfig at all.
var errEmptyConfig = clientcmd.NewEmptyConfigError(`Missing or incomplete configuration info.  Please point to an existing, complete config file:


  1. Via the command-line flag --kubeconfig
  2. Via the KUBECONFIG environment variable
  3. In your home directory as ~/.kube/config

To view or setup config directly use the 'config' command.`)

// NewConfigFlags is the flags with kubectl's defaults.
func NewConfigFlags() *ConfigFlags {
	cacheDir := os.Getenv("KUBECACHEDIR")
	if cacheDir == "" {
		cacheDir = filepath.Join(homedir.HomeDir(), ".kube", "cache")
	}
	return &ConfigFlags{cacheDir: cacheDir, timeout: "0", impersonateGroups: []string{}, impersonateExtra: []string{}}
}

// AddFlags binds the flags to flags.
func (f *ConfigFlags) AddFlags(flags *pflag.FlagSet) {
	flags.StringVar(&f.kubeConfig, "kubeconfig", f.kubeConfig, "Path to the kubeconfig file to use for CLI requests.")
	// Accepted as kubectl accepts it; stencil keeps what discovery read in memory, per process.
	flags.StringVar(&f.cacheDir, "cache-dir", f.cacheDir, "Default cache directory")
	flags.StringVar(&f.certFile, "client-certificate", f.certFile, "Path to a client certificate file for TLS")
	flags.StringVar(&f.keyFile, "client-key", f.keyFile, "Path to a client key file for TLS")
	flags.StringVar(&f.bearerToken, "token", f.bearerToken, "Bearer token for authentication to the API server")
	flags.StringVar(&f.impersonate, "as", f.impersonate, "Username to impersonate for the operation. User could be a regular user or a service account in a namespace.")
	flags.StringVar(&f.impersonateUID, "as-uid", f.impersonateUID, "UID to impersonate for the operation.")
	flags.StringArrayVar(&f.impersonateGroups, "as-group", f.impersonateGroups, "Group to impersonate for the operation, this flag can be repeated to specify multiple groups.")
	flags.StringArrayVar(&f.impersonateExtra, "as-user-extra", f.impersonateExtra, "User extras to impersonate for the operation, this flag can be repeated to specify multiple values for the same key.")
	flags.StringVar(&f.clusterName, "cluster", f.clusterName, "The name of the kubeconfig cluster to use")
	flags.StringVar(&f.authInfoName, "user", f.authInfoName, "The name of the kubeconfig user to use")
	flags.StringVarP(&f.namespace, "namespace", "n", f.namespace, "If present, the namespace scope for this CLI request")
	flags.StringVar(&f.context, "context", f.context, "The name of the kubeconfig context to use")
	flags.StringVarP(&f.apiServer, "server", "s", f.apiServer, "The address and port of the Kubernetes API server")
	flags.StringVar(&f.tlsServerName, "tls-server-name", f.tlsServerName, "Server name to use for server certificate validation. If it is not provided, the hostname used to contact the server is used")
	flags.BoolVar(&f.insecure, "insecure-skip-tls-verify", f.insecure, "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure")
	flags.StringVar(&f.caFile, "certificate-authority", f.caFile, "Path to a cert file for the certificate authority")
	flags.StringVar(&f.timeout, "request-timeout", f.timeout, "The length of time to wait before giving up on a single server request. Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h). A value of zero means don't timeout requests.")
	flags.BoolVar(&f.disableCompression, "disable-compression", f.disableCompression, "If true, opt-out of response compression for all requests to the server")
	flags.StringVar(&f.proxyURL, "proxy-url", f.proxyURL, "Proxy URL to use for requests to the API server")
}

// ToRawKubeConfigLoader is the kubeconfig as the flags override it, made once.
func (f *ConfigFlags) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	f.once.Do(func() { f.loader = emptyConfigWords{f.newLoader()} })
	return f.loader
}

func (f *ConfigFlags) newLoader() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.DefaultClientConfig = &clientcmd.DefaultClientConfig
	rules.ExplicitPath = f.kubeConfig
	o := &clientcmd.ConfigOverrides{ClusterDefaults: clientcmd.ClusterDefaults}
	o.AuthInfo.ClientCertificate, o.AuthInfo.ClientKey = f.certFile, f.keyFile
	o.AuthInfo.Token = f.bearerToken
	o.AuthInfo.Impersonate, o.AuthInfo.ImpersonateUID, o.AuthInfo.ImpersonateGroups = f.impersonate, f.impersonateUID, f.impersonateGroups
	if len(f.impersonateExtra) > 0 {
		extra := map[string][]string{}
		for _, kv := range f.impersonateExtra {
			if key, value, ok := strings.Cut(kv, "="); ok {
				extra[key] = append(extra[key], value)
			}
		}
		o.AuthInfo.ImpersonateUserExtra = extra
	}
	o.ClusterInfo.Server, o.ClusterInfo.TLSServerName, o.ClusterInfo.CertificateAuthority = f.apiServer, f.tlsServerName, f.caFile
	o.ClusterInfo.InsecureSkipTLSVerify, o.ClusterInfo.DisableCompression, o.ClusterInfo.ProxyURL = f.insecure, f.disableCompression, f.proxyURL
	o.CurrentContext = f.context
	o.Context.Cluster, o.Context.AuthInfo, o.Context.Namespace = f.clusterName, f.authInfoName, f.namespace
	o.Timeout = f.timeout
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, o)
}

// ToRESTConfig is the client configuration of the kubeconfig and the flags.
func (f *ConfigFlags) ToRESTConfig() (*rest.Config, error) {
	return f.ToRawKubeConfigLoader().ClientConfig()
}

// ToRESTMapper is the mapper of the server's discovery, read on first use, once a process.
func (f *ConfigFlags) ToRESTMapper() (*stencilclient.Mapper, error) {
	f.mapperOnce.Do(func() {
		config, err := f.ToRESTConfig()
		if err != nil {
			f.mapperErr = err
			return
		}
		d, err := stencilclient.NewDiscoveryForConfig(config)
		if err != nil {
			f.mapperErr = err
			return
		}
		f.mapper = stencilclient.NewMapper(d)
	})
	return f.mapper, f.mapperErr
}

// emptyConfigWords answers kubectl's longer words when there is no kubeconfig at all.
type emptyConfigWords struct {
	config clientcmd.ClientConfig
}

func (c emptyConfigWords) ClientConfig() (*rest.Config, error) {
	config, err := c.config.ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		return config, errEmptyConfig
	}
	return config, err
}

func (c emptyConfigWords) Namespace() (string, bool, error) {
	namespace, explicit, err := c.config.Namespace()
	if clientcmd.IsEmptyConfig(err) {
		return namespace, explicit, errEmptyConfig
	}
	return namespace, explicit, err
}

func (c emptyConfigWords) RawConfig() (clientcmdapi.Config, error) {
	config, err := c.config.RawConfig()
	if clientcmd.IsEmptyConfig(err) {
		return config, errEmptyConfig
	}
	return config, err
}

func (c emptyConfigWords) ConfigAccess() clientcmd.ConfigAccess {
	return c.config.ConfigAccess()
}
