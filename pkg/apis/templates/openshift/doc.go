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

// +k8s:openapi-gen=true
// +k8s:deepcopy-gen=package
// +groupName=template.openshift.io
// +k8s:openapi-model-package=com.github.openshift.api.template.v1

// Package openshift is OpenShift's template.openshift.io/v1 Template, a served version of
// the internal Template: the same stored object read and written in OpenShift's form, field for
// field as OpenShift's API has it. ToInternal and FromInternal convert between the two forms
// without loss; the legacy spelling "apiVersion: v1, kind: Template" is read as well.
// TemplateInstance is likewise a served version of the internal TemplateInstance
// (InstanceToInternal, InstanceFromInternal).
package openshift
