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

// Package provenance records where every leaf field of a processed template's output came
// from: the template field that wrote it (its field path always, file:line:col when the
// template was read from a file), the parameters substituted into it, and the ordered steps
// (transformers, generators, the name hash, CustomTransforms, expansion) that set or changed
// it. docs/provenance.md describes the Map's JSON.
//
// It is a leaf utility shared by the engine (pkg/process seeds each object's Nodes from the
// template), the pipeline (pkg/transform calls a StepTracer around each step, which the
// Tracker here implements by diffing leaf values before and after the step) and the glue
// (pkg/render). Nothing here runs unless provenance is asked for: a request without it pays
// one nil check per step.
//
// Parameter values never enter a Map: fields carry parameter names only, and a member name a
// secret parameter wrote is replaced in paths by the template's own key (Mask).
package provenance

import "errors"

// SourceKind says what kind of place a field was written in.
type SourceKind string

// The kinds of sources.
const (
	// Template is a field of the template's objects (Source.Path is objects[i]...).
	Template SourceKind = "Template"
	// ObjectLabels is one of the template's own object labels (objectLabels.KEY, or labels.KEY
	// in an OpenShift template), which the engine writes into label maps and selectors.
	ObjectLabels SourceKind = "ObjectLabels"
	// RequestLabels is one of the caller's labels (the request's labels.KEY, -l of the CLI).
	RequestLabels SourceKind = "RequestLabels"
	// Engine is a field the engine itself adds by a rule of the dialect (an OpenShift
	// template's empty namespace of an object without metadata, a label map created).
	Engine SourceKind = "Engine"
	// Step is a field a step made that the template did not write: its first step made it.
	Step SourceKind = "Step"
)

// Source is a place a field or step was written.
type Source struct {
	// Kind says what kind of place it is.
	Kind SourceKind `json:"kind"`
	// Path is the field path in the template (objects[2].spec.replicas, objectLabels.app,
	// transformers[1]) or in the request (labels.app); empty for Engine and Step.
	Path string `json:"path,omitempty"`
	// File, Line and Column are where Path was written, when the template came from a file
	// (File is empty for a request body, which still has lines).
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// Field is the provenance of one leaf field (a string, number, bool, null, or an empty object
// or array) of an output object.
type Field struct {
	// Path is the field's path in its object, as Kubernetes writes field paths
	// (spec.template.spec.containers[0].image).
	Path string `json:"path"`
	// Source is where the template wrote the field, or Kind Step when a step made it.
	Source Source `json:"source"`
	// Parameters name the parameters substituted into the field (or into a member name on its
	// path, or a typed ${{P}} that wrote the value around it), in the order written. Names
	// only: never values.
	Parameters []string `json:"parameters,omitempty"`
	// Steps index Map.Steps: the steps that set or changed the field, in the order they ran.
	Steps []int `json:"steps,omitempty"`
	// Note says what a rule of the engine did to the value the template wrote (OpenShift's
	// group of a legacy kind, its stripNamespace).
	Note string `json:"note,omitempty"`
}

// StepInfo is one step that ran over the objects.
type StepInfo struct {
	// Kind is the transformer's or generator's kind (LabelTransformer, ConfigMapGenerator,
	// Kustomization, StarlarkTransformer), or the step of processing: NameHash,
	// CustomTransform, Expansion, Destination.
	Kind string `json:"kind"`
	// Name is the config's metadata.name (a generator's, what it makes).
	Name string `json:"name,omitempty"`
	// Generator says the step is one of the template's generators.
	Generator bool `json:"generator,omitempty"`
	// Source is where the step's config was written (transformers[1], or
	// transformersFrom[0].transformers[2] in an imported Template, which has no file); nil
	// for a step of processing no config wrote (NameHash, CustomTransform, Expansion).
	Source *Source `json:"source,omitempty"`
	// Parameters name the parameters substituted into the step's config.
	Parameters []string `json:"parameters,omitempty"`
}

// Object is the provenance of one output object.
type Object struct {
	// APIVersion, Kind, Namespace and Name identify the object as it was output.
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
	// Source is the template object it was written from (objects[2]), or Kind Step with
	// Steps naming the step that made it.
	Source Source `json:"source"`
	// Element is the element of a for-each object this object was written for.
	Element *int `json:"element,omitempty"`
	// Steps index Map.Steps: the step that made an object the template did not write.
	Steps []int `json:"steps,omitempty"`
	// Fields are its leaf fields, in the order of their paths.
	Fields []Field `json:"fields"`
}

// Map is the provenance of every leaf field of every output object.
type Map struct {
	// Steps are the steps that ran over the objects, in order; fields index them.
	Steps []StepInfo `json:"steps,omitempty"`
	// Objects are the output objects, in the order of the List's items.
	Objects []Object `json:"objects"`
}

// DefaultMaxFields bounds the leaf fields one map describes: past it, provenance is refused
// rather than held (about 300 bytes a field while processing runs).
const DefaultMaxFields = 100_000

// ErrTooManyFields is the error of an output with more leaf fields than a map may describe.
var ErrTooManyFields = errors.New("too many leaf fields for provenance")
