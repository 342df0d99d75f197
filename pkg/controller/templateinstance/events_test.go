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

package templateinstance

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestEvents: a pass records each change of the instance's Ready condition as an Event, as
// sample-controller records what it does: Normal while it progresses, Warning for a failure;
// a pass that changes nothing records nothing; no Event quotes a value read from a Secret.
func TestEvents(t *testing.T) {
	f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), newInstance("shop")}}).build()
	f.mustSync("shop")
	if got := strings.Join(f.recorded(), "\n"); got != "Normal Applying applying generation 1\nNormal Ready all 1 objects are ready" {
		t.Errorf("events of a first pass:\n%s", got)
	}
	f.mustSync("shop")
	if got := f.recorded(); len(got) != 0 {
		t.Errorf("a pass that changes nothing recorded %v", got)
	}

	app := newTemplate("app", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"k":"${DB}"}}`)
	app.Parameters = []templatesv1.Parameter{{Name: "DB", Pattern: "^x$"}}
	f = (&fixture{t: t, objects: []runtime.Object{app, newInstance("shop", fromSecret("db"))},
		live: []runtime.Object{valuesSecret("db", map[string]string{"DB": password})}}).build()
	if _, err := f.sync("shop"); !errors.Is(err, errRetry) {
		t.Fatal(err)
	}
	got := f.recorded()
	if len(got) != 1 || !strings.HasPrefix(got[0], "Warning ProcessingFailed ") || strings.Contains(got[0], password) {
		t.Errorf("events of a failed pass: %v", got)
	}
}
