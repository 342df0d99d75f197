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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TemplateRender is a file kept in git, not an object of the server: it says which template to
// render and with which values, as a TemplateInstance does for the controller, so that a GitOps
// tool renders it (stencil render; the Argo CD plugin, docs/gitops.md). Its output is what
// stencil process --local prints for the same template and values, each object annotated with
// the render's digest.
type TemplateRender struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata; the name, when given, names the render in diagnostics and in
	// the derivation of generated values.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says what to render and with which values.
	Spec TemplateRenderSpec `json:"spec"`
}

// TemplateRenderSpec says what to render and with which values. Exactly one of templateFile,
// template and templateRef is set.
type TemplateRenderSpec struct {
	// templateFile is the template's file: a path relative to the render file's directory that
	// stays inside it (no "..", not absolute, no symbolic link leading out).
	// +optional
	TemplateFile string `json:"templateFile,omitempty"`
	// template is an inline Template: templates.stencil.dev/v1alpha1, or OpenShift's
	// template.openshift.io/v1.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	Template *runtime.RawExtension `json:"template,omitempty"`
	// templateRef names one revision of a Template stored on the cluster, by its hash, so that
	// what renders never changes behind the file; it needs read access to TemplateRevisions.
	// +optional
	TemplateRef *TemplateRevisionReference `json:"templateRef,omitempty"`
	// parameters are the values by parameter name. They win over valuesFiles. $(VAR) names a
	// variable of the build environment (ARGOCD_APP_NAME, ARGOCD_APP_NAMESPACE,
	// ARGOCD_APP_REVISION, KUBE_VERSION, KUBE_API_VERSIONS, ...), $$ writes a $.
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`
	// valuesFiles are files of parameter values (a YAML or JSON map of parameter names to
	// strings), paths as templateFile's; a later file wins over an earlier one.
	// +optional
	// +listType=atomic
	ValuesFiles []string `json:"valuesFiles,omitempty"`
	// labels are extra object labels merged over the template's own; $(VAR) as in parameters.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// properties are the values of template expansion, by Go identifier; $(VAR) as in
	// parameters.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
	// ignoreUnknownParameters accepts values for parameters the template does not declare
	// (values files shared by several templates).
	// +optional
	IgnoreUnknownParameters bool `json:"ignoreUnknownParameters,omitempty"`
	// allowEmpty accepts a render of no objects. Without it an empty render is an error: a
	// GitOps tool would otherwise prune every object the application has.
	// +optional
	AllowEmpty bool `json:"allowEmpty,omitempty"`
	// provenanceAnnotations adds Kustomize's config.kubernetes.io/origin annotation (the
	// template file, the repository and the revision it was rendered from) and
	// alpha.config.kubernetes.io/transformations to every object. Every commit then changes
	// every object, so it is off by default.
	// +optional
	ProvenanceAnnotations bool `json:"provenanceAnnotations,omitempty"`
}

// TemplateRevisionReference names one revision of a stored Template by its content's hash.
type TemplateRevisionReference struct {
	// namespace of the Template.
	Namespace string `json:"namespace"`
	// name of the Template.
	Name string `json:"name"`
	// hash is the revision's hash, "sha256:" and 64 hex digits, as its TemplateRevision's
	// hash field says.
	Hash string `json:"hash"`
}

// AnnotationRenderDigest, on every object a TemplateRender renders, is "sha256:" and the hex
// SHA-256 of the render's objects without it: equal digests, equal renders.
const AnnotationRenderDigest = "templates.stencil.dev/render-digest"
