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

// +genclient
// +genclient:method=Process,verb=create,subresource=processed,input=TemplateParameters,result=List
// +genclient:method=Preview,verb=create,subresource=preview,input=TemplatePreview,result=TemplatePreview
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Template is a parameterised list of objects plus the transformers that shape them.
// Processing it returns a v1 List ready for kubectl apply.
type Template struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// message is shown to the user after processing; parameters are substituted into it.
	// +optional
	Message string `json:"message,omitempty"`
	// parameters are the values substituted into the objects, message and labels.
	// +optional
	// +listType=map
	// +listMapKey=name
	Parameters []Parameter `json:"parameters,omitempty"`
	// rules are CEL expressions over the parameters' typed values (params) that must all hold
	// for the template to be processed, such as "params.MIN <= params.MAX".
	// +optional
	// +listType=atomic
	Rules []ParameterRule `json:"rules,omitempty"`
	// objects are the objects of any kind, custom resources included, that processing returns.
	// +optional
	// +listType=atomic
	// +kubebuilder:pruning:PreserveUnknownFields
	Objects []runtime.RawExtension `json:"objects,omitempty"`
	// objectLabels are added to every object and, for workloads and Services, to their selectors
	// and pod templates.
	// +optional
	ObjectLabels map[string]string `json:"objectLabels,omitempty"`
	// generators are KRM-style generator configs (ConfigMapGenerator, SecretGenerator, or an
	// exec plugin's config) whose objects join the template's objects before the transformers
	// run. Parameters are substituted into them as into objects.
	// +optional
	// +listType=atomic
	Generators []runtime.RawExtension `json:"generators,omitempty"`
	// transformers is the ordered pipeline of KRM-style transformer configs run over the objects
	// after substitution and object labels.
	// +optional
	// +listType=atomic
	Transformers []runtime.RawExtension `json:"transformers,omitempty"`
	// transformersFrom imports the consolidated transformer lists of other Templates in the same
	// namespace.
	// +optional
	// +listType=atomic
	TransformersFrom []TransformerImport `json:"transformersFrom,omitempty"`
	// transformerOverrides are strategic-merge patches on imported transformer configs, matched by
	// apiVersion, kind and metadata.name.
	// +optional
	// +listType=atomic
	TransformerOverrides []runtime.RawExtension `json:"transformerOverrides,omitempty"`
	// transformerOrder reorders the consolidated transformer list by name.
	// +optional
	// +listType=atomic
	TransformerOrder []TransformerReference `json:"transformerOrder,omitempty"`
	// dialect is the set of rules the Template is processed by: Stencil's (when empty) or
	// OpenShift's, those of a template.openshift.io/v1 Template (see Dialect). A Template created
	// through template.openshift.io/v1 has dialect OpenShift.
	// +optional
	Dialect Dialect `json:"dialect,omitempty"`
	// author is the user who last changed the Template's content (every field but metadata),
	// set by the server on create and on every content change; a client's value is
	// overwritten. A TemplateInstance applies what the Template renders only when the author
	// may create each object too, so that editing a Template never borrows the rights of the
	// users who instantiate it.
	// +optional
	Author *TemplateAuthor `json:"author,omitempty"`
	// revision is the revision the content is, set by the server on create and on every
	// change of the content (as author); a client's value is overwritten. The content is kept
	// as the TemplateRevision <name>-<number>.
	// +optional
	Revision *RevisionStamp `json:"revision,omitempty"`
	// rollout says how the Template's Automatic instances move to a new revision, wave by
	// wave; when not set they all move at once. It is not content: changing it makes no
	// revision.
	// +optional
	Rollout *Rollout `json:"rollout,omitempty"`
	// rolloutAuthor is the user who last changed how the Template's instances move: its
	// rollout, or its annotations templates.stencil.dev/rollout-plan-hash, rollout-resume and
	// rollout-undo (stencil rollout pause, resume and undo write them). The server sets it; a
	// client's value is overwritten. An Automatic instance applies what its Template renders
	// only when this user may create it and read the instance's inputs too: whoever chooses
	// when instances move never borrows the rights of the users who instantiate them, nor of
	// the content's author.
	// +optional
	RolloutAuthor *TemplateAuthor `json:"rolloutAuthor,omitempty"`
	// status is the controller's, written through templates/status: the progress of the last
	// rollout. A client's value is ignored.
	// +optional
	Status *TemplateStatus `json:"status,omitempty"`
}

// TemplateAuthor is the identity that last wrote a Template's content, as the API server
// authenticated it.
type TemplateAuthor struct {
	// username is the user's name.
	// +optional
	Username string `json:"username,omitempty"`
	// uid identifies the user across name changes.
	// +optional
	UID string `json:"uid,omitempty"`
	// groups are the user's groups.
	// +optional
	// +listType=atomic
	Groups []string `json:"groups,omitempty"`
	// extra is further information the authenticator gave.
	// +optional
	Extra map[string][]string `json:"extra,omitempty"`
}

// ParameterType constrains the value of a parameter.
// +enum
type ParameterType string

// The parameter types a Template may declare.
const (
	ParameterTypeString ParameterType = "string"
	ParameterTypeInt    ParameterType = "int"
	ParameterTypeBool   ParameterType = "bool"
	ParameterTypeBase64 ParameterType = "base64"
	ParameterTypeNumber ParameterType = "number"
	ParameterTypeJSON   ParameterType = "json"
)

// Parameter is one value substituted into a Template.
type Parameter struct {
	// name is referenced as ${NAME}, ${{NAME}}, $(NAME) or $((NAME)); it matches ^[A-Za-z_][A-Za-z0-9_]*$.
	Name string `json:"name"`
	// displayName is a human readable name.
	// +optional
	DisplayName string `json:"displayName,omitempty"`
	// description explains the parameter.
	// +optional
	Description string `json:"description,omitempty"`
	// value is the default value.
	// +optional
	Value string `json:"value,omitempty"`
	// required means processing fails when the value is still empty after generation.
	// +optional
	Required bool `json:"required,omitempty"`
	// type constrains the value: string (the default), int (an integer of any size), bool,
	// base64, number (a JSON number) or json (any JSON value).
	// +optional
	Type ParameterType `json:"type,omitempty"`
	// generate names the generator used when the value is empty; only "expression" exists.
	// +optional
	Generate string `json:"generate,omitempty"`
	// from is the generator input, such as "[a-zA-Z0-9]{16}".
	// +optional
	From string `json:"from,omitempty"`

	// The constraints below apply to a non-empty value, the caller's, the default or a generated
	// one; an empty value is an unset one, which required forbids. A Template whose default or
	// enum breaks its own constraints, or whose constraint does not fit its type, is refused.

	// enum lists the only values accepted, for types string, int and number. Values are written
	// as parameter values are, as strings ("3" for an int).
	// +optional
	// +listType=set
	Enum []string `json:"enum,omitempty"`
	// pattern is an RE2 regular expression a string value must match. As OpenAPI's pattern, it
	// matches anywhere in the value: anchor it with ^ and $ to match the whole value.
	// +optional
	Pattern string `json:"pattern,omitempty"`
	// minimum is the smallest value accepted for types int and number, inclusive: a number
	// (1, 0.5), as JSON Schema has it, or a string holding one ("1"), which keeps every digit
	// of an int of any size. It is compared exactly, as written, and reads back as written.
	// +optional
	// +k8s:conversion-gen=false
	Minimum *Bound `json:"minimum,omitempty"`
	// maximum is the largest value accepted for types int and number, inclusive, written as
	// minimum is.
	// +optional
	// +k8s:conversion-gen=false
	Maximum *Bound `json:"maximum,omitempty"`
	// minLength is the fewest characters (Unicode code points) a string value may have: an
	// integer, or a string holding one.
	// +optional
	// +k8s:conversion-gen=false
	MinLength *Length `json:"minLength,omitempty"`
	// maxLength is the most characters (Unicode code points) a string value may have, written
	// as minLength is.
	// +optional
	// +k8s:conversion-gen=false
	MaxLength *Length `json:"maxLength,omitempty"`
	// multiline hints to a UI that the value spans lines; it changes no processing.
	// +optional
	Multiline bool `json:"multiline,omitempty"`
	// secret says the value is masked in UIs and not printed by the stencil CLI unless asked
	// (--show-secrets); it still appears in the processed objects.
	// +optional
	Secret bool `json:"secret,omitempty"`
	// items, for type json only, makes the value a JSON array whose every element keeps this
	// schema.
	// +optional
	Items *JSONValueSchema `json:"items,omitempty"`
	// maxItems, with items, is the most elements the array may have, written as minLength is.
	// It also bounds what CEL expressions iterating over the value are estimated to cost.
	// +optional
	// +k8s:conversion-gen=false
	MaxItems *Length `json:"maxItems,omitempty"`
	// properties, for type json only, makes the value a JSON object whose members named here
	// keep their schemas when present; other members are free. items and properties exclude
	// each other.
	// +optional
	Properties map[string]JSONValueSchema `json:"properties,omitempty"`
}

// JSONValueSchema describes an element or a member of a json parameter's value, with a
// parameter's constraint keywords; it is one level deep (a json element takes no constraints).
type JSONValueSchema struct {
	// type is the JSON type of the element or member: string, int (a number without fraction
	// or exponent), number, bool, or json for any value.
	Type ParameterType `json:"type"`
	// enum lists the only values accepted, for types string, int and number; a string's enum
	// word is its content, a number's its digits.
	// +optional
	// +listType=set
	Enum []string `json:"enum,omitempty"`
	// pattern is an RE2 regular expression a string must match, anywhere unless anchored.
	// +optional
	Pattern string `json:"pattern,omitempty"`
	// minimum is the smallest int or number accepted, inclusive: a number or a string holding
	// one, compared exactly as written.
	// +optional
	// +k8s:conversion-gen=false
	Minimum *Bound `json:"minimum,omitempty"`
	// maximum is the largest int or number accepted, inclusive, written as minimum is.
	// +optional
	// +k8s:conversion-gen=false
	Maximum *Bound `json:"maximum,omitempty"`
	// minLength is the fewest characters a string may have: an integer, or a string holding one.
	// +optional
	// +k8s:conversion-gen=false
	MinLength *Length `json:"minLength,omitempty"`
	// maxLength is the most characters a string may have, written as minLength is.
	// +optional
	// +k8s:conversion-gen=false
	MaxLength *Length `json:"maxLength,omitempty"`
}

// ImportMode says where imported transformers go relative to a Template's own.
// +enum
type ImportMode string

// The import modes of TransformersFrom.
const (
	ImportModePrepend ImportMode = "prepend"
	ImportModeAppend  ImportMode = "append"
)

// TransformerImport names a Template in the same namespace whose transformers are imported.
type TransformerImport struct {
	// name of the Template.
	Name string `json:"name"`
	// importMode is prepend (the default) or append.
	// +optional
	ImportMode ImportMode `json:"importMode,omitempty"`
}

// TransformerReference names a transformer in the consolidated list.
type TransformerReference struct {
	// name is the transformer's metadata.name.
	Name string `json:"name"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateList is a list of Templates.
type TemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the Templates.
	Items []Template `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateParameters is the request body of templates/{name}/processed.
type TemplateParameters struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata; a name, if given, must equal the Template's.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// parameters are the caller's values by parameter name.
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`
	// labels are extra object labels merged over the Template's own.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// ignoreUnknownParameters accepts values for parameters the Template does not declare.
	// +optional
	IgnoreUnknownParameters bool `json:"ignoreUnknownParameters,omitempty"`
	// properties are the values of template expansion, by Go identifier.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
	// destinations, when given, process the template once for each destination, with its
	// properties over the request's; the answer is one List of every destination's objects in
	// destination order, each annotated templates.stencil.dev/destination: <name>.
	// +optional
	// +listType=map
	// +listMapKey=name
	Destinations []Destination `json:"destinations,omitempty"`
}

// Destination is one place the processed objects go to, with its own expansion properties.
type Destination struct {
	// name is written into each of the destination's objects, in the
	// templates.stencil.dev/destination annotation.
	Name string `json:"name"`
	// properties override the request's properties for this destination; clusterName defaults
	// to the destination's name.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// List is the answer of processing. On the wire it is a v1 List (apiVersion: v1,
// kind: List) of the processed objects, so kubectl apply -f - takes it as it is; it also carries
// the substituted message and the final parameter values, generated ones included, which
// kubectl ignores and other callers may read.
// +k8s:conversion-gen=false
type List struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the processed objects in template order.
	Items []runtime.RawExtension `json:"items"`
	// message is the template's message with parameters substituted.
	// +optional
	Message string `json:"message,omitempty"`
	// parameters are the template's parameters with the values processing used.
	// +optional
	// +listType=atomic
	Parameters []Parameter `json:"parameters,omitempty"`
	// provenance is where every leaf field of every item came from, when the request asked
	// with ?provenance=true; kubectl apply, which reads only items, ignores it.
	// +optional
	Provenance *Provenance `json:"provenance,omitempty"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CustomTransform removes fields from every processed object it binds to, after the template's
// own transformers: the cluster administrator's policy, as KubeStellar's CustomTransform.
type CustomTransform struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which objects the CustomTransform binds to and what it removes.
	Spec CustomTransformSpec `json:"spec"`
	// status reports whether the spec is in force.
	// +optional
	Status CustomTransformStatus `json:"status,omitempty"`
}

// CustomTransformSpec says which objects a CustomTransform binds to and what it removes.
type CustomTransformSpec struct {
	// apiGroup is the group of the objects; empty for the core group.
	// +optional
	APIGroup string `json:"apiGroup,omitempty"`
	// resource is the lowercase plural resource of the objects, such as "services"; kind may be
	// given instead.
	// +optional
	Resource string `json:"resource,omitempty"`
	// kind is the kind of the objects, such as "Service", an alternative to resource.
	// +optional
	Kind string `json:"kind,omitempty"`
	// remove are the fields to remove, as JSONPath: $ followed by .name or ["name"] segments,
	// [*] for every element and [N] for one (negative N counts from the end).
	// +listType=atomic
	Remove []string `json:"remove"`
}

// CustomTransformStatus reports whether the spec is in force.
type CustomTransformStatus struct {
	// observedGeneration is the generation the conditions describe.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// conditions hold Accepted: whether every path of spec.remove parsed.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CustomTransformList is a list of CustomTransforms.
type CustomTransformList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the CustomTransforms.
	Items []CustomTransform `json:"items"`
}
