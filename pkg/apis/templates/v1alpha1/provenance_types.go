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

// The provenance of a processed template's output: where every leaf field of every object came
// from. It is answered beside the List's items when processing is asked with
// ?provenance=true (docs/provenance.md); pkg/provenance builds it.

// ProvenanceSourceKind says what kind of place a field was written in.
// +enum
type ProvenanceSourceKind string

// The kinds of provenance sources.
const (
	// ProvenanceTemplate is a field of the template's objects (path objects[i]...).
	ProvenanceTemplate ProvenanceSourceKind = "Template"
	// ProvenanceObjectLabels is one of the template's own object labels (objectLabels[KEY], or
	// labels[KEY] in an OpenShift template) merged into a label map or selector.
	ProvenanceObjectLabels ProvenanceSourceKind = "ObjectLabels"
	// ProvenanceRequestLabels is one of the request's labels (labels[KEY]).
	ProvenanceRequestLabels ProvenanceSourceKind = "RequestLabels"
	// ProvenanceEngine is a field the engine adds by a rule of the dialect.
	ProvenanceEngine ProvenanceSourceKind = "Engine"
	// ProvenanceMadeByStep is a field a step made that the template did not write: its first step.
	ProvenanceMadeByStep ProvenanceSourceKind = "Step"
)

// ProvenanceSource is a place a field or step was written.
// +k8s:conversion-gen=false
type ProvenanceSource struct {
	// kind says what kind of place it is.
	Kind ProvenanceSourceKind `json:"kind"`
	// path is the field path in the template (objects[2].spec.replicas, objectLabels[app],
	// transformers[1]) or in the request (labels[app]).
	// +optional
	Path string `json:"path,omitempty"`
	// file, line and column are where path was written, when the template came from a file
	// (a request body has lines but no file).
	// +optional
	File string `json:"file,omitempty"`
	// +optional
	Line int32 `json:"line,omitempty"`
	// +optional
	Column int32 `json:"column,omitempty"`
}

// FieldProvenance is the provenance of one leaf field (a string, number, bool, null, or an
// empty object or array) of an output object.
// +k8s:conversion-gen=false
type FieldProvenance struct {
	// path is the field's path in its object (spec.template.spec.containers[0].image).
	Path string `json:"path"`
	// source is where the template wrote the field, or kind Step when a step made it.
	Source ProvenanceSource `json:"source"`
	// parameters name the parameters substituted into the field, into a member name on its
	// path, or into the ${{P}} that wrote the value around it. Names only, never values.
	// +optional
	// +listType=atomic
	Parameters []string `json:"parameters,omitempty"`
	// steps index the answer's steps: those that set or changed the field, in order.
	// +optional
	// +listType=atomic
	Steps []int32 `json:"steps,omitempty"`
	// note says what a rule of the engine did to the value the template wrote.
	// +optional
	Note string `json:"note,omitempty"`
}

// ProvenanceStep is one step that ran over the objects.
// +k8s:conversion-gen=false
type ProvenanceStep struct {
	// kind is the transformer's or generator's kind, or the step of processing: NameHash,
	// CustomTransform, Expansion, Destination, ProvenanceAnnotations.
	Kind string `json:"kind"`
	// name is the config's metadata.name (a generator's: what it makes).
	// +optional
	Name string `json:"name,omitempty"`
	// generator says the step is one of the template's generators.
	// +optional
	Generator bool `json:"generator,omitempty"`
	// source is where the step's config was written; none for a step no config wrote.
	// +optional
	Source *ProvenanceSource `json:"source,omitempty"`
	// parameters name the parameters substituted into the step's config.
	// +optional
	// +listType=atomic
	Parameters []string `json:"parameters,omitempty"`
}

// ObjectProvenance is the provenance of one output object.
// +k8s:conversion-gen=false
type ObjectProvenance struct {
	// apiVersion, kind, namespace and name identify the object as output.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// +optional
	Kind string `json:"kind,omitempty"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// +optional
	Name string `json:"name,omitempty"`
	// source is the template object it was written from (objects[2]), or kind Step.
	Source ProvenanceSource `json:"source"`
	// element is the element of a for-each object this object was written for.
	// +optional
	Element *int32 `json:"element,omitempty"`
	// steps index the answer's steps: the step that made an object the template did not write.
	// +optional
	// +listType=atomic
	Steps []int32 `json:"steps,omitempty"`
	// fields are its leaf fields, in the order of their paths.
	// +listType=atomic
	Fields []FieldProvenance `json:"fields"`
	// removed are the fields a step removed (a CustomTransform, a RemoveTransformer, a
	// patch), which the output does not have, in the order of their paths.
	// +optional
	// +listType=atomic
	Removed []RemovedField `json:"removed,omitempty"`
}

// RemovedField is a field of an object that a step removed.
// +k8s:conversion-gen=false
type RemovedField struct {
	// path is the field's path in its object as it was before the step: the removed member,
	// or the element at its place before the removal (containers[1]); what was under it went
	// with it.
	Path string `json:"path"`
	// step indexes the answer's steps: the one that removed it.
	Step int32 `json:"step"`
}

// Provenance is where every leaf field of every output object came from.
// +k8s:conversion-gen=false
type Provenance struct {
	// steps are the steps that ran over the objects, in order; fields index them.
	// +optional
	// +listType=atomic
	Steps []ProvenanceStep `json:"steps,omitempty"`
	// objects follow the List's items, in order.
	// +listType=atomic
	Objects []ObjectProvenance `json:"objects"`
}
