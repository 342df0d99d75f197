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
	"strings"

	"github.com/spf13/pflag"

	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"stencil.dev/stencil/pkg/servingcert"
)

// ServingCertOptions make the replicas in a cluster share a serving certificate they create
// themselves, kept in a Secret, and keep their APIService's caBundle equal to its CA.
type ServingCertOptions struct {
	// Secret is NAMESPACE/NAME of the kubernetes.io/tls Secret; empty serves --tls-cert-file
	// (or a self-signed certificate of this replica alone) instead.
	Secret string
	// APIServiceNames are the APIServices whose caBundle the server keeps; none leaves them
	// alone.
	APIServiceNames []string
}

// AddFlags adds the serving-certificate flags.
func (s *ServingCertOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.Secret, "self-signed-cert-secret", s.Secret,
		"NAMESPACE/NAME of a kubernetes.io/tls Secret holding the serving certificate that every replica serves. "+
			"The first replica creates it (a CA and a certificate for the names of --alternate-dns, valid one year), and "+
			"any replica renews it four months before it expires. Needs get, update, list and watch on that Secret "+
			"and create on Secrets. Conflicts with --tls-cert-file.")
	fs.StringSliceVar(&s.APIServiceNames, "apiservice-name", s.APIServiceNames,
		"Name of an APIService whose spec.caBundle the server keeps equal to the CA of --self-signed-cert-secret "+
			"(repeatable: v1.template.openshift.io too with --openshift-templates). Needs get, list, watch and patch on it.")
}

// Validate reports options that cannot work together.
func (s *ServingCertOptions) Validate(o *StencilServerOptions) []error {
	var errs []error
	if len(s.APIServiceNames) > 0 && s.Secret == "" {
		errs = append(errs, fmt.Errorf("--apiservice-name needs --self-signed-cert-secret: the server writes only the CA it made"))
	}
	if s.Secret == "" {
		return errs
	}
	if _, _, err := s.secretRef(); err != nil {
		errs = append(errs, err)
	}
	if o.Local.Enabled {
		errs = append(errs, fmt.Errorf("--self-signed-cert-secret needs a cluster; --local makes its own certificate"))
	}
	if len(o.AlternateDNS) == 0 {
		errs = append(errs, fmt.Errorf("--self-signed-cert-secret needs --alternate-dns: the certificate must name <service>.<namespace>.svc"))
	}
	if cert := o.RecommendedOptions.SecureServing.ServerCert.CertKey; cert.CertFile != "" || cert.KeyFile != "" {
		errs = append(errs, fmt.Errorf("--self-signed-cert-secret and --tls-cert-file/--tls-private-key-file exclude each other"))
	}
	return errs
}

func (s *ServingCertOptions) secretRef() (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(s.Secret, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("--self-signed-cert-secret must be NAMESPACE/NAME, not %q", s.Secret)
	}
	return namespace, name, nil
}

// start loads the certificate before the server is configured, so that it serves it from its
// first connection, and returns the controller that keeps it (nil when the options are off).
func (s *ServingCertOptions) start(ctx context.Context, ro *genericoptions.RecommendedOptions, dnsNames []string, observer servingcert.Observer) (*servingcert.Controller, error) {
	if s.Secret == "" {
		return nil, nil
	}
	namespace, name, err := s.secretRef()
	if err != nil {
		return nil, err
	}
	config, err := clusterConfig(ro)
	if err != nil {
		return nil, err
	}
	c, err := servingcert.New(ctx, config, servingcert.Options{
		SecretNamespace: namespace, SecretName: name, DNSNames: dnsNames, APIServiceNames: s.APIServiceNames,
	}, observer)
	if err != nil {
		return nil, err
	}
	ro.SecureServing.ServerCert.GeneratedCert = c.CertKeyProvider()
	return c, nil
}

// runServingCertController keeps the certificate and the caBundle current while the server runs.
func runServingCertController(server *genericapiserver.GenericAPIServer, c *servingcert.Controller) {
	if c == nil {
		return
	}
	server.AddPostStartHookOrDie("stencil-serving-cert", func(hook genericapiserver.PostStartHookContext) error {
		go c.Run(hook.Context)
		return nil
	})
}

// clusterConfig reaches kube-apiserver as the generic server does for its core client: through
// --kubeconfig, or in-cluster with the pod's ServiceAccount.
func clusterConfig(ro *genericoptions.RecommendedOptions) (*rest.Config, error) {
	if ro.CoreAPI == nil || ro.CoreAPI.CoreAPIKubeconfigPath == "" {
		return rest.InClusterConfig()
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: ro.CoreAPI.CoreAPIKubeconfigPath}, &clientcmd.ConfigOverrides{})
	return loader.ClientConfig()
}
