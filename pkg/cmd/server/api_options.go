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

	"github.com/spf13/pflag"

	"stencil.dev/stencil/pkg/apiserver"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

// OpenShiftOptions serve OpenShift's template group too; off by default: on OpenShift the
// group belongs to openshift-apiserver.
type OpenShiftOptions struct {
	// Templates serves template.openshift.io/v1 templates, processedtemplates and
	// templateinstances over the storage of our own.
	Templates bool
}

// NewOpenShiftOptions returns the defaults: the group is not served.
func NewOpenShiftOptions() *OpenShiftOptions { return &OpenShiftOptions{} }

// AddFlags adds the OpenShift flag to fs.
func (o *OpenShiftOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Templates, "openshift-templates", o.Templates,
		"also serve OpenShift's template.openshift.io/v1 (templates, processedtemplates, templateinstances) over the same storage, for oc and "+
			"OpenShift clients on clusters without OpenShift; never on OpenShift, where openshift-apiserver serves that group")
}

// Validate reports nothing: either value is valid.
func (o *OpenShiftOptions) Validate() []error { return nil }

// ApplyTo sets whether c serves the group.
func (o *OpenShiftOptions) ApplyTo(c *apiserver.ExtraConfig) { c.OpenShiftTemplates = o.Templates }

// TemplateRevisionOptions say how many TemplateRevisions of each Template are kept.
type TemplateRevisionOptions struct {
	// History is how many revisions of each Template are kept besides those instances use.
	History int
}

// NewTemplateRevisionOptions returns the defaults: templaterevision.DefaultHistory.
func NewTemplateRevisionOptions() *TemplateRevisionOptions {
	return &TemplateRevisionOptions{History: templaterevision.DefaultHistory}
}

// AddFlags adds the revision flag to fs.
func (o *TemplateRevisionOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.History, "template-revision-history", o.History,
		"How many revisions (TemplateRevisions) of each Template are kept besides those a TemplateInstance pins or runs; older ones are deleted when a new one is stored.")
}

// Validate reports a history that would not keep the current revision.
func (o *TemplateRevisionOptions) Validate() []error {
	if o.History < 1 {
		return []error{fmt.Errorf("--template-revision-history must be at least 1: the Template's current revision is always kept")}
	}
	return nil
}

// ApplyTo sets the history in c.
func (o *TemplateRevisionOptions) ApplyTo(c *apiserver.ExtraConfig) {
	c.TemplateRevisionHistory = o.History
}
