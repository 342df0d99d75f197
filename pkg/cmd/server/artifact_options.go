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
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/spf13/pflag"

	"stencil.dev/stencil/pkg/apiserver"
)

// ArtifactOptions configure the artifact server: the plain-HTTP listener from which Flux's
// kustomize-controller fetches what published TemplateInstances render. It is off unless a
// port is given.
type ArtifactOptions struct {
	// BindAddress and Port are where the artifact server listens; port 0 runs none.
	BindAddress string
	Port        int
	// URL is the artifact server's address as kustomize-controller reaches it (a Service's),
	// written into every ExternalArtifact.
	URL string
}

// NewArtifactOptions returns the defaults: no artifact server.
func NewArtifactOptions() *ArtifactOptions {
	return &ArtifactOptions{BindAddress: "0.0.0.0"}
}

// AddFlags adds the artifact server's flags to fs.
func (o *ArtifactOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.BindAddress, "artifact-bind-address", o.BindAddress, "The address the artifact server listens on.")
	fs.IntVar(&o.Port, "artifact-port", o.Port,
		"The port of the artifact server, plain HTTP, from which Flux's kustomize-controller fetches the renders of TemplateInstances "+
			"whose delivery is ExternalArtifact; 0 serves none, and such instances are refused.")
	fs.StringVar(&o.URL, "artifact-url", o.URL,
		"The artifact server's base URL as kustomize-controller reaches it, such as http://stencil-artifacts.stencil-system.svc.cluster.local.; "+
			"required with --artifact-port.")
}

// Validate reports every invalid option at once.
func (o *ArtifactOptions) Validate() []error {
	var errs []error
	if o.Port < 0 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--artifact-port %d is not a port (0 serves no artifacts)", o.Port))
	}
	if o.Port == 0 {
		if o.URL != "" {
			errs = append(errs, fmt.Errorf("--artifact-url needs --artifact-port: no artifact server runs without a port"))
		}
		return errs
	}
	if net.ParseIP(o.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--artifact-bind-address %q is not an IP address", o.BindAddress))
	}
	if o.URL == "" {
		errs = append(errs, fmt.Errorf("--artifact-url is required with --artifact-port: it is the address kustomize-controller fetches artifacts from"))
		return errs
	}
	u, err := url.Parse(o.URL)
	switch {
	case err != nil:
		errs = append(errs, fmt.Errorf("--artifact-url: %v", err))
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
		(u.Path != "" && u.Path != "/"):
		errs = append(errs, fmt.Errorf("--artifact-url %q must be http:// or https:// and a host, with no path, user, query or fragment", o.URL))
	}
	return errs
}

// ApplyTo configures the artifact server in c; none without a port.
func (o *ArtifactOptions) ApplyTo(c *apiserver.ExtraConfig) {
	c.Artifacts = nil
	if o.Port == 0 {
		return
	}
	u, _ := url.Parse(o.URL)
	u.Path = ""
	c.Artifacts = &apiserver.ArtifactConfig{Address: net.JoinHostPort(o.BindAddress, strconv.Itoa(o.Port)), URL: u.String()}
}
