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
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/apiserver"
	"stencil.dev/stencil/pkg/registry/templates/templatecheck"
	"stencil.dev/stencil/pkg/typecheck"
	"stencil.dev/stencil/pkg/typecheck/kubeschemas"
)

// The modes of --template-type-check.
const (
	typeCheckWarn   = "warn"
	typeCheckRefuse = "refuse"
	typeCheckOff    = "off"
)

// TypeCheckOptions say whether a Template written in cluster mode is type-checked against the
// cluster's OpenAPI, and what its findings do.
type TypeCheckOptions struct {
	// Mode is warn (Warning headers), refuse (errors are a 422) or off.
	Mode string
	// Timeout bounds what one write waits for the cluster's schemas.
	Timeout time.Duration
}

// NewTypeCheckOptions returns the defaults: warn, within templatecheck.DefaultTypesTimeout.
func NewTypeCheckOptions() *TypeCheckOptions {
	return &TypeCheckOptions{Mode: typeCheckWarn, Timeout: templatecheck.DefaultTypesTimeout}
}

// AddFlags adds --template-type-check and its timeout.
func (o *TypeCheckOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Mode, "template-type-check", o.Mode,
		"In cluster mode, type-check the objects of each Template created or updated against the cluster's /openapi/v3, as stencil lint --cluster does: "+
			"warn answers the findings as Warning headers, refuse answers errors (unknown fields, wrong types, required fields, enum values) with a 422, off checks nothing.")
	fs.DurationVar(&o.Timeout, "template-type-check-timeout", o.Timeout,
		"How long one create or update waits for the cluster's OpenAPI; past it the template is stored unchecked.")
}

// Validate checks the mode and the timeout.
func (o *TypeCheckOptions) Validate() []error {
	var errs []error
	switch o.Mode {
	case typeCheckWarn, typeCheckRefuse, typeCheckOff:
	default:
		errs = append(errs, fmt.Errorf("--template-type-check must be warn, refuse or off, not %q", o.Mode))
	}
	if o.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("--template-type-check-timeout must be positive"))
	}
	return errs
}

// ApplyTo sets the store's type check of c's cluster.
func (o *TypeCheckOptions) ApplyTo(c *apiserver.ExtraConfig) error {
	types, err := o.Types(c.ClusterConfig)
	c.TemplateTypes = types
	return err
}

// Types is the store's type check of the cluster of config; nil when it is off or there is
// no cluster (local mode).
func (o *TypeCheckOptions) Types(config *rest.Config) (*templatecheck.Types, error) {
	if o.Mode == typeCheckOff || config == nil {
		return nil, nil
	}
	client, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, err
	}
	core, err := kubeschemas.Set()
	if err != nil {
		return nil, err
	}
	cluster := &typecheck.Cluster{Fetch: typecheck.RESTFetch(client.RESTClient()), Source: "the cluster"}
	checker := &typecheck.Checker{Resolver: cluster, Meta: core.Named(kubeschemas.ObjectMetaName), MetaSet: core}
	return &templatecheck.Types{Checker: checker, Refuse: o.Mode == typeCheckRefuse, Timeout: o.Timeout}, nil
}
