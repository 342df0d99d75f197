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

// Package process turns a Template and parameter values into the objects of a v1 List.
//
// It is a pure library shared by the server, the stencil CLI and the tests, so that every path
// gives the same bytes for the same input. It imports nothing from the server.
//
// # Use
//
// DecodeTemplate reads a Template (ours, OpenShift's template.openshift.io/v1 or the legacy
// "apiVersion: v1, kind: Template") from JSON or YAML. Compile validates it and compiles it
// once into a Plan; Plan.Execute processes it with one request's values. A Plan is immutable
// and safe for concurrent Execute calls, so the server caches the plans of stored templates.
// CheckValues reports the problems of a request's values without a plan, so that a template
// that does not compile still gets all of its problems reported at once.
//
// # Why a plan
//
// A generic engine decodes every object into maps, walks them and encodes them again, which
// costs more than the substitution itself. For a template given in a request, DecodeTemplate
// converts YAML to JSON once and scans the template's top level once, handing each object's
// bytes to Compile as they are. Compile then validates, compacts and indexes each object in one
// pass (structure.go: the ends of every object and array and the place of every "$"), splits
// its bytes at every parameter reference and at every place a request can
// change the structure (metadata.labels, selectors, pod-template labels, members a null value
// removes). Runs of bytes that no request can change are kept as they are, so Execute mostly
// copies bytes into one output buffer. Objects whose structure depends on parameter values
// (a parameterised kind, a whole metadata given by ${{P}}, a substituted key on the path to
// the labels) take a slower path: they are written the same way and then re-shaped as a small
// tree; the result is the same.
//
// # Syntax (Stencil dialect)
//
//   - ${P} and $(P) are replaced by the value of P; the text around them is kept.
//   - ${{P}} and $((P)) forming the whole string are replaced by the value parsed as JSON; a
//     value that is not JSON stays a string. A JSON null removes the member of an object and
//     stays null in an array. With text around them they substitute as text (the proposal's
//     rule for $((P)); ${{P}} behaves the same, so that both families are interchangeable).
//     In map keys, message and labels they always substitute as text.
//   - $$ before a reference escapes it: "$${P}" yields "${P}". $$ before anything that would
//     not be substituted is left alone, so Kubernetes' own "$$(VAR)" escape keeps working.
//   - A value is never scanned again: P="${Q}" yields the literal "${Q}".
//   - Numbers are copied as written, so big integers keep full precision. A parameter of type
//     int substitutes through ${{P}} as the canonical integer (leading zeros dropped).
//   - Every number must be one Kubernetes can read, an int64 or a float64 (within ±1.8e308):
//     kube-apiserver, structured-merge-diff and kubectl read no other, although JSON's grammar
//     allows 1e400. In objects and transformer configs a larger one is an error naming its
//     field; an int parameter's value must be such an integer; and a value given to ${{P}}
//     that holds a larger number is not JSON Kubernetes can read, so it stays a string, as
//     any value that is not JSON does ("1e400" gives the string "1e400").
//   - $(X) where X is not a parameter is Kubernetes' variable syntax and is left alone.
//     $(X) where X is a parameter and also a variable Kubernetes would expand at that place is
//     an error: in command and args, any env var of the container; in env[k].value, the env
//     vars env[0..k-1] (Kubernetes expands only earlier ones there).
//   - ${X}, ${{X}} and $((X)) naming no declared parameter are errors.
//   - Map keys, kind and apiVersion are substituted too.
//
// # OpenShift dialect
//
// An OpenShift Template is processed as OpenShift's processor does, except for its bugs:
//
//   - Only ${P} and ${{P}} exist. $(P) and $((P)) are left alone, because OpenShift templates
//     use $(VAR) for Kubernetes variables whose names often equal parameter names.
//   - ${{P}} is typed only as the whole string; with text around it is left as written (as in
//     OpenShift), with a warning when P is declared.
//   - There is no $$ escape, as in OpenShift: "$${P}" yields "$" and the value.
//   - In message and in label keys and values, ${P} substitutes anywhere and ${{P}} only as
//     the whole string, as text (OpenShift's EvaluateParameterSubstitution: labels: {a:
//     "${{P}}"} with P=x gives a: x); with text around, ${{P}} stays as written, with a warning.
//   - References to undeclared parameters stay as written, with one warning per name.
//   - labels go to metadata.labels only, never to selectors or pod templates.
//   - metadata.namespace: a hardcoded one is removed, one holding a reference kept, and one
//     that is "", null or not a string becomes "" (OpenShift's stripNamespace). An object
//     without metadata gets "" for a top-level namespace that holds no reference, as
//     stripNamespace looks there then.
//   - OpenShift kinds written with a group-less apiVersion get their group after substitution
//     (DeploymentConfig v1 -> apps.openshift.io/v1, Route -> route.openshift.io/v1, ...).
//
// What OpenShift tolerates is tolerated in its dialect, with a warning naming it (lenient.go);
// each is an error in ours:
//   - A parameter name declared more than once: the last declaration is substituted, as
//     OpenShift's processor keys parameters by name. A caller's value sets the first
//     declaration only, as oc sets it, so it is not used: a warning says so.
//   - A member name repeated in one object of objects: its last value is used, in the place
//     of the first, as encoding/json reads it.
//   - Template labels that are not valid labels, literally or once substituted: applied as
//     they are (the API server refuses the objects later). The caller's labels stay checked.
//   - A template file (DecodeTemplateFile, the CLI's input) whose first YAML documents are
//     empty or only comments: read from the first document that is not, as oc reads it.
//
// Fixed bugs: generator ranges include their upper bound and use crypto/rand; null in an array
// stays null instead of panicking; a typed reference in a map key substitutes as text instead
// of panicking; values are not re-scanned; numbers keep their precision; a ${{P}} namespace
// counts as parameterised.
//
// # Other rules
//
//   - A parameter takes the caller's value if one is given (even an empty one), else its
//     default. A value still empty is generated when the parameter has a generator; a value
//     still empty after that is an error when the parameter is required. Values are checked
//     against the parameter's type. Caller values for undeclared parameters are errors unless
//     Request.IgnoreUnknownParameters is set.
//   - Types: string (the default), int (an integer of any size, leading zeros allowed), bool,
//     base64, number (JSON's number grammar) and json (any JSON value, json.Valid).
//   - Constraints (our dialect only: OpenShift's Parameter has none, and the decoder drops
//     them) apply to every non-empty final value, the caller's, the default and a generated
//     one; an empty value is unset. enum compares as text, and by exact value for int and
//     number ("03" is "3"); pattern is RE2 and, as OpenAPI's, matches anywhere unless anchored;
//     minimum and maximum are inclusive and compared exactly (big.Rat, no float rounding);
//     minLength and maxLength count Unicode code points. One value breaking several
//     constraints is one error at parameters[i] listing every reason; a secret or base64
//     value is never echoed in an error.
//   - A json parameter's items make its value an array whose every element has the items'
//     type (int: a JSON number without fraction or exponent) and keeps their keywords;
//     properties make it an object whose members named there, when present, do the same.
//     Keywords compare a string element's content and a number's digits. One level deep: an
//     element of type json takes no keywords.
//   - The constraints themselves are checked by Compile and by the store, through
//     valuecheck.Declared: validation.ValidateParameterConstraints checks that each fits its
//     type (enum: string, int, number; pattern, minLength, maxLength: string; minimum,
//     maximum: int, number; items, properties: json, not both), the patterns compile (once
//     per plan) and the bounds are numbers in order; then the default and every enum word
//     are checked as values (valuecheck, the checks of every value), against the valid
//     constraints.
//   - maxItems, with items, bounds the array's length (and CEL's cost estimates of it).
//   - Rules (our dialect only) are CEL over params, the final values typed (celparams):
//     compiled once per plan with the CRD environment and cost estimation, refused by Compile
//     at rules[i].rule when they do not compile, yield no bool or cost too much, and at
//     rules[i].fieldPath when it names no parameter. Execute evaluates every rule beside the
//     values' checks: a false rule is its message at parameters[i] of its fieldPath, else at
//     rules[i]; a rule that cannot be evaluated is an error at rules[i] unless a value's error
//     explains it.
//   - Objects (our dialect only) annotated templates.stencil.dev/include-when (a CEL bool)
//     are written only when it is true; templates.stencil.dev/for-each (a CEL list) writes the
//     object once per element, with ${ITEM}/${{ITEM}} the element (a string as itself, other
//     values as JSON) and ${INDEX} its index; its metadata.name must refer to ITEM or INDEX
//     (or it has a generateName), and no parameter may be named ITEM or INDEX. Both
//     annotations are removed from the output, and an annotations map they leave empty with
//     them. Labels apply to every object written. In OpenShift templates the annotations are
//     plain annotations.
//   - Object labels (the template's, substituted, then the caller's over them) go to
//     metadata.labels of every object. In the Stencil dialect they also go to the selectors and
//     pod-template labels of Deployment, ReplicaSet, StatefulSet, DaemonSet (apps, extensions),
//     ReplicationController, Job and CronJob (batch) and to Service selectors. A selector is
//     extended only where one exists (a Service without selector stays without); missing label
//     maps under an existing selector or pod template are created.
//   - A hardcoded metadata.namespace is removed; one holding a reference is kept.
//   - A null metadata, metadata.labels or pod-template metadata is replaced by the labels when
//     there are labels to add, and kept otherwise.
//   - Label keys and values are checked: literal ones by Compile, substituted ones and the
//     caller's by Execute.
//   - Objects must be JSON objects with a string kind and apiVersion; duplicate member names
//     (in our dialect) and invalid UTF-8 are errors, and so are keys that collide once
//     substituted.
//   - generators, transformers and transformerOverrides are substituted like objects (no labels, no
//     namespace stripping) and returned in Result for the transformer pipeline.
//   - YAML templates are converted to JSON as kubectl converts them, so a literal integer
//     beyond 64 bits written in YAML (not in a parameter value) becomes a float there; in
//     JSON templates every number is kept as written.
//   - Generator expressions: literal text and groups [...]{n}; a "[" always starts a group,
//     so a malformed group is an error rather than literal text; ranges follow OpenShift's
//     order a..z A..Z 0..9 (so [a-Z] is every letter) with both bounds included; a group
//     draws each of its distinct characters with equal chance.
//   - Errors are collected and returned together as a field.ErrorList with paths such as
//     parameters[3] or objects[2].spec.replicas; nothing panics on any input. Warnings are
//     one per distinct message, with the first place and how many more.
package process
