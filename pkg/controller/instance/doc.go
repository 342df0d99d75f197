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

// Package instance is what one pass over a TemplateInstance does up to the apply, as a library
// of no clients of its own: read the Template (the revision the instance should run) and the
// values the instance reads as its requester, render them through the processing endpoints'
// Renderer, plan the objects (resources, namespaces, the apply-set label, the generated-values
// Secret), and the authorization rule: the requester and every author of what is rendered may
// do what the pass would do to each object, and every author may read every input.
//
// Three callers share it, so that what they decide is what the others would: the
// TemplateInstance controller (pkg/controller/templateinstance), which then applies the plan
// as the requester (or publishes it as an artifact Flux applies); the preview of a candidate
// across a Template's instances (pkg/controller/preview), which compares plans; and a
// rollout's plan check, which asks the preview. What acts in the cluster is given to it:
// an Applier per requester (reads, dry-runs and writes as that user), an Authorizer
// (SubjectAccessReviews), a RESTMapper, a TemplateReader and a Renderer.
//
// Entry points (Planner, built by New from a Config):
//
//   - Pass: the whole of it for one instance: Render, Plan, the objects it would prune, and
//     Authorize. What the caller then does with the plan is its own: apply it, publish it,
//     compare it with live objects (adoption plans against them).
//   - Render, Plan, PruneTargets, Authorize, AuthorizeInputs: the steps, for callers that
//     compose them differently (the preview renders two contents with one instance's values).
//   - ReadInputs and RenderTemplate: what Render does with a given Template and values.
//
// Every problem of the instance is a *Failure (a reason and a message that names no secret
// value); any other error is the cluster's or the authorizer's, retried.
package instance
