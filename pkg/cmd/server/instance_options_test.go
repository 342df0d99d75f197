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

import "testing"

// TestInstanceOptionsValidate: the controller needs its Lease's namespace and sane election
// timing in a cluster, and --target-kubeconfig only makes sense in local mode.
func TestInstanceOptionsValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*InstanceControllerOptions)
		local  bool
		errors int
	}{
		{"defaults in a cluster with a namespace", func(o *InstanceControllerOptions) { o.LeaseNamespace = "stencil-system" }, false, 0},
		{"no namespace", func(o *InstanceControllerOptions) { o.LeaseNamespace = "" }, false, 1},
		{"no namespace, controller off", func(o *InstanceControllerOptions) { o.LeaseNamespace, o.Enabled = "", false }, false, 0},
		{"local mode needs no namespace", func(o *InstanceControllerOptions) { o.LeaseNamespace = "" }, true, 0},
		{"renew deadline over the lease", func(o *InstanceControllerOptions) {
			o.LeaseNamespace, o.RenewDeadline = "ns", o.LeaseDuration
		}, false, 1},
		{"target kubeconfig in a cluster", func(o *InstanceControllerOptions) { o.LeaseNamespace, o.TargetKubeconfig = "ns", "k" }, false, 1},
		{"target kubeconfig locally", func(o *InstanceControllerOptions) { o.TargetKubeconfig = "k" }, true, 0},
		{"no workers", func(o *InstanceControllerOptions) { o.LeaseNamespace, o.Workers = "ns", 0 }, false, 1},
	}
	for _, tc := range cases {
		o := NewInstanceControllerOptions()
		tc.mutate(o)
		if errs := o.Validate(tc.local); len(errs) != tc.errors {
			t.Errorf("%s: %d errors, want %d: %v", tc.name, len(errs), tc.errors, errs)
		}
	}
}
