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

package celgate

import (
	"context"
	"strings"
	"testing"
)

func TestGate(t *testing.T) {
	wave := []Instance{
		{Name: "a", Ready: true, Revision: 2, Labels: map[string]string{"tier": "canary"},
			Conditions: map[string]Condition{"Ready": {Status: "True", Reason: "Ready"}}},
		{Name: "b", Ready: false, Revision: 2, Conditions: map[string]Condition{"Ready": {Status: "False", Reason: "NotReady"}}},
	}
	for _, tc := range []struct {
		gate string
		want bool
		err  string
	}{
		{gate: "instances.all(i, i.ready)", want: false},
		{gate: "instances.exists(i, i.ready && i.labels.tier == 'canary')", want: true},
		{gate: "instances.filter(i, i.conditions.Ready.reason == 'Ready').size() * 2 >= instances.size()", want: true},
		{gate: "wave < waves && instances.all(i, i.revision == 2)", want: true},
		{gate: "instances[0].nope == 1", err: "no such key"},
	} {
		g, err := Compile(tc.gate)
		if err != nil {
			t.Fatalf("%s: %v", tc.gate, err)
		}
		got, err := g.Eval(context.Background(), wave, 1, 3)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one with %q", tc.gate, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %v, %v; want %v", tc.gate, got, err, tc.want)
		}
	}
}

// A gate that is not a condition, or no CEL at all, or a program of megabytes, is refused
// when the Template is written; one that loops past the cost limit stops.
func TestGateHostile(t *testing.T) {
	for gate, want := range map[string]string{
		"instances.size()":                        "must be true or false",
		"instances.all(i, ":                       "does not compile",
		strings.Repeat("true && ", 1000) + "true": "at most 4096",
		"nope": "does not compile",
	} {
		if _, err := Compile(gate); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40s: %v, want %q", gate, err, want)
		}
	}
	g, err := Compile("instances.all(i, instances.all(j, instances.all(k, instances.all(l, i.name + j.name + k.name + l.name != 'x'))))")
	if err != nil {
		t.Fatal(err)
	}
	many := make([]Instance, 300)
	for i := range many {
		many[i].Name = strings.Repeat("n", 50)
	}
	if _, err := g.Eval(context.Background(), many, 1, 1); err == nil || !strings.Contains(err.Error(), "cost") {
		t.Errorf("a gate past the cost limit: %v", err)
	}
}
