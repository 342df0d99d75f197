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

import (
	"errors"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// The Map's types are the API's (v1alpha1), so that the server answers the map the engine
// made as it is, and the CLI writes the same JSON.
type (
	// SourceKind says what kind of place a field was written in.
	SourceKind = v1alpha1.ProvenanceSourceKind
	// Source is a place a field or step was written.
	Source = v1alpha1.ProvenanceSource
	// Field is the provenance of one leaf field of an output object.
	Field = v1alpha1.FieldProvenance
	// StepInfo is one step that ran over the objects.
	StepInfo = v1alpha1.ProvenanceStep
	// Object is the provenance of one output object.
	Object = v1alpha1.ObjectProvenance
	// Map is the provenance of every leaf field of every output object.
	Map = v1alpha1.Provenance
	// RemovedField is a field of an object that a step removed.
	RemovedField = v1alpha1.RemovedField
)

// The kinds of sources.
const (
	// Template is a field of the template's objects (Source.Path is objects[i]...).
	Template = v1alpha1.ProvenanceTemplate
	// ObjectLabels is one of the template's own object labels.
	ObjectLabels = v1alpha1.ProvenanceObjectLabels
	// RequestLabels is one of the caller's labels.
	RequestLabels = v1alpha1.ProvenanceRequestLabels
	// Engine is a field the engine itself adds by a rule of the dialect.
	Engine = v1alpha1.ProvenanceEngine
	// Step is a field a step made that the template did not write: its first step made it.
	Step = v1alpha1.ProvenanceMadeByStep
)

// DefaultMaxFields bounds the leaf fields one map describes: past it, provenance is refused
// rather than held.
const DefaultMaxFields = 100_000

// ErrTooManyFields is the error of an output with more leaf fields than a map may describe.
var ErrTooManyFields = errors.New("too many leaf fields for provenance")
