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
	"os"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apiserver"
	"stencil.dev/stencil/pkg/controller/templateinstance"
)

// InstanceControllerOptions configure the TemplateInstance controller, which runs in cluster mode only.
type InstanceControllerOptions struct {
	// Enabled runs the controller; a server in local mode never runs it.
	Enabled bool
	// LeaseNamespace holds the Lease of the leader election: the server's own namespace.
	LeaseNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod time the leader election.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Workers reconcile instances in parallel.
	Workers int
	// TargetKubeconfig points local mode at a cluster to create the instances' objects in,
	// with that kubeconfig's identity.
	TargetKubeconfig string
	// ApplyCreatedWithoutCluster applies the instances stored while the server had no cluster
	// (their conditions say NoCluster) without each one's consent.
	ApplyCreatedWithoutCluster bool
}

// NewInstanceControllerOptions returns the defaults: on, with the Lease in $POD_NAMESPACE, and
// templateinstance's election timing and workers.
func NewInstanceControllerOptions() *InstanceControllerOptions {
	return &InstanceControllerOptions{
		Enabled:        true,
		LeaseNamespace: os.Getenv("POD_NAMESPACE"),
		LeaseDuration:  templateinstance.DefaultLeaseDuration,
		RenewDeadline:  templateinstance.DefaultRenewDeadline,
		RetryPeriod:    templateinstance.DefaultRetryPeriod,
		Workers:        templateinstance.DefaultWorkers,
	}
}

// AddFlags adds the controller's flags to fs.
func (o *InstanceControllerOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Enabled, "templateinstance-controller", o.Enabled,
		"Run the TemplateInstance controller (cluster mode only): it creates, upgrades and deletes the objects of TemplateInstances as their requesters.")
	fs.StringVar(&o.LeaseNamespace, "leader-election-namespace", o.LeaseNamespace,
		"Namespace of the Lease the replicas elect the controller's leader with; defaults to $POD_NAMESPACE.")
	fs.DurationVar(&o.LeaseDuration, "leader-election-lease-duration", o.LeaseDuration,
		"How long a leader's Lease lasts without renewal before another replica takes over.")
	fs.DurationVar(&o.RenewDeadline, "leader-election-renew-deadline", o.RenewDeadline,
		"How long the leader tries to renew its Lease before it stops leading.")
	fs.DurationVar(&o.RetryPeriod, "leader-election-retry-period", o.RetryPeriod,
		"How often candidates try to take the Lease and the leader renews it.")
	fs.IntVar(&o.Workers, "templateinstance-workers", o.Workers, "TemplateInstances reconciled at once.")
	fs.StringVar(&o.TargetKubeconfig, "target-kubeconfig", o.TargetKubeconfig,
		"Local mode only: run the TemplateInstance controller against the cluster of this kubeconfig, creating the "+
			"instances' objects with the kubeconfig's own identity (the local user is its owner; no impersonation).")
	fs.BoolVar(&o.ApplyCreatedWithoutCluster, "apply-instances-created-without-cluster", o.ApplyCreatedWithoutCluster,
		"Apply the TemplateInstances created while the server had no cluster (local mode without --target-kubeconfig, "+
			"where nothing was to be created). Without it, each waits for its own consent: the annotation "+
			v1alpha1.AnnotationApplyCreatedWithoutCluster+"=true.")
}

// Validate reports every invalid option; local is true in local mode, where the controller
// does not run.
func (o *InstanceControllerOptions) Validate(local bool) []error {
	var errs []error
	if o.TargetKubeconfig != "" && !local {
		errs = append(errs, fmt.Errorf("--target-kubeconfig is for local mode (--local); in a cluster the controller acts in the hosting cluster"))
	}
	if o.ApplyCreatedWithoutCluster && (!o.Enabled || (local && o.TargetKubeconfig == "")) {
		errs = append(errs, fmt.Errorf("--apply-instances-created-without-cluster needs a cluster to apply them in: the TemplateInstance controller, "+
			"with --target-kubeconfig in local mode"))
	}
	if !o.Enabled || local {
		return errs
	}
	if o.LeaseNamespace == "" {
		errs = append(errs, fmt.Errorf("--leader-election-namespace (or $POD_NAMESPACE) is required when the TemplateInstance controller runs; --templateinstance-controller=false turns it off"))
	}
	if o.LeaseDuration <= o.RenewDeadline || float64(o.RenewDeadline) <= 1.2*float64(o.RetryPeriod) {
		errs = append(errs, fmt.Errorf("leader election needs --leader-election-lease-duration > --leader-election-renew-deadline > 1.2 x --leader-election-retry-period"))
	}
	if o.Workers < 1 {
		errs = append(errs, fmt.Errorf("--templateinstance-workers must be at least 1"))
	}
	return errs
}

// ApplyTo sets the controller's options in c, or none when it does not run: turned off, or in
// local mode (local) without --target-kubeconfig, where there is no cluster.
func (o *InstanceControllerOptions) ApplyTo(c *apiserver.ExtraConfig, local bool) error {
	c.Instances = nil
	if !o.Enabled || (local && o.TargetKubeconfig == "") {
		return nil
	}
	opts := &templateinstance.Options{LeaseNamespace: o.LeaseNamespace,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod,
		Workers: o.Workers, ApplyCreatedWithoutCluster: o.ApplyCreatedWithoutCluster}
	if local {
		// One process: no election; the kubeconfig's user acts, and authorizes, as itself.
		target, err := clientcmd.BuildConfigFromFlags("", o.TargetKubeconfig)
		if err != nil {
			return fmt.Errorf("--target-kubeconfig: %w", err)
		}
		opts.Target, opts.ActAsSelf, opts.LeaseNamespace = target, true, ""
	}
	c.Instances = opts
	return nil
}
