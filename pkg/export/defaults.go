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

package export

import (
	"encoding/json"
	"reflect"
	"strings"

	"stencil.dev/stencil/pkg/transform"
)

// A fieldDefault is a field that the API server sets when it is missing: the field at path is
// removed when isDefault says its value is the one the server would set again. A path step "*"
// goes into every element of a list. Rules of one table run in order, so that a rule for a
// parent can find it emptied by the rules for its fields.
type fieldDefault struct {
	path      string
	isDefault func(parent map[string]any, v any) bool
}

// is compares with a constant default.
func is(path string, want any) fieldDefault {
	return fieldDefault{path: path, isDefault: func(_ map[string]any, v any) bool { return sameJSON(v, want) }}
}

// empty removes an empty object, which the server fills in or writes back as {}.
func empty(path string) fieldDefault { return is(path, map[string]any{}) }

// probeDefaults are the defaults of a container probe.
func probeDefaults(probe string) []fieldDefault {
	return []fieldDefault{
		is(probe+".timeoutSeconds", 1), is(probe+".periodSeconds", 10),
		is(probe+".successThreshold", 1), is(probe+".failureThreshold", 3),
		is(probe+".httpGet.scheme", "HTTP"),
	}
}

// containerDefaults are the defaults of a container (SetDefaults_Container and its parts).
var containerDefaults = append([]fieldDefault{
	is("terminationMessagePath", "/dev/termination-log"),
	is("terminationMessagePolicy", "File"),
	{path: "imagePullPolicy", isDefault: func(c map[string]any, v any) bool { return v == defaultPullPolicy(transform.NestedString(c, "image")) }},
	empty("resources"),
	is("ports.*.protocol", "TCP"),
	is("env.*.valueFrom.fieldRef.apiVersion", "v1"),
}, append(append(probeDefaults("livenessProbe"), probeDefaults("readinessProbe")...), probeDefaults("startupProbe")...)...)

// podSpecDefaults are the defaults of a pod spec (SetDefaults_PodSpec, volumes).
var podSpecDefaults = []fieldDefault{
	is("dnsPolicy", "ClusterFirst"),
	is("restartPolicy", "Always"),
	is("terminationGracePeriodSeconds", 30),
	is("schedulerName", "default-scheduler"),
	empty("securityContext"),
	// The deprecated serviceAccount is copied from serviceAccountName.
	{path: "serviceAccount", isDefault: func(spec map[string]any, v any) bool { return v == spec["serviceAccountName"] }},
	is("volumes.*.configMap.defaultMode", 420),
	is("volumes.*.secret.defaultMode", 420),
	is("volumes.*.projected.defaultMode", 420),
	is("volumes.*.downwardAPI.defaultMode", 420),
	is("volumes.*.downwardAPI.items.*.fieldRef.apiVersion", "v1"),
	is("volumes.*.projected.sources.*.downwardAPI.items.*.fieldRef.apiVersion", "v1"),
	is("volumes.*.hostPath.type", ""),
}

// rollingUpdate returns the rules of a workload's update strategy whose rolling update has
// the given defaults.
func rollingUpdate(strategy string, fields ...fieldDefault) []fieldDefault {
	rules := make([]fieldDefault, 0, len(fields)+3)
	for _, f := range fields {
		rules = append(rules, fieldDefault{path: strategy + ".rollingUpdate." + f.path, isDefault: f.isDefault})
	}
	return append(rules, empty(strategy+".rollingUpdate"), is(strategy+".type", "RollingUpdate"), empty(strategy))
}

// kindDefaults are the defaults of each kind outside its pod template, by group/kind.
var kindDefaults = map[string][]fieldDefault{
	"apps/Deployment": append([]fieldDefault{is("spec.revisionHistoryLimit", 10), is("spec.progressDeadlineSeconds", 600)},
		rollingUpdate("spec.strategy", is("maxUnavailable", "25%"), is("maxSurge", "25%"))...),
	"apps/StatefulSet": append([]fieldDefault{
		is("spec.revisionHistoryLimit", 10), is("spec.podManagementPolicy", "OrderedReady"),
		is("spec.persistentVolumeClaimRetentionPolicy.whenDeleted", "Retain"),
		is("spec.persistentVolumeClaimRetentionPolicy.whenScaled", "Retain"),
		empty("spec.persistentVolumeClaimRetentionPolicy"),
		is("spec.volumeClaimTemplates.*.spec.volumeMode", "Filesystem"),
	}, rollingUpdate("spec.updateStrategy", is("partition", 0))...),
	"apps/DaemonSet": append([]fieldDefault{is("spec.revisionHistoryLimit", 10)},
		rollingUpdate("spec.updateStrategy", is("maxUnavailable", 1), is("maxSurge", 0))...),
	"batch/Job": {
		is("spec.backoffLimit", 6), is("spec.completionMode", "NonIndexed"),
		is("spec.podReplacementPolicy", "TerminatingOrFailed"),
		// completions is defaulted to 1 only with parallelism, which is then 1 too.
		{path: "spec.completions", isDefault: func(spec map[string]any, v any) bool {
			return sameJSON(v, 1) && (spec["parallelism"] == nil || sameJSON(spec["parallelism"], 1))
		}},
		is("spec.parallelism", 1),
	},
	"batch/CronJob": {
		is("spec.concurrencyPolicy", "Allow"), is("spec.suspend", false),
		is("spec.successfulJobsHistoryLimit", 3), is("spec.failedJobsHistoryLimit", 1),
	},
	"/Service": {
		is("spec.type", "ClusterIP"),
		is("spec.ports.*.protocol", "TCP"),
		// targetPort is defaulted to port.
		{path: "spec.ports.*.targetPort", isDefault: func(port map[string]any, v any) bool { return sameJSON(v, port["port"]) }},
	},
	"/PersistentVolumeClaim": {is("spec.volumeMode", "Filesystem")},
	"/Secret":                {is("type", "Opaque")},
	"networking.k8s.io/NetworkPolicy": {
		is("spec.ingress.*.ports.*.protocol", "TCP"),
		is("spec.egress.*.ports.*.protocol", "TCP"),
		// policyTypes is defaulted to Ingress, and Egress when there are egress rules.
		{path: "spec.policyTypes", isDefault: func(spec map[string]any, v any) bool {
			want := []any{"Ingress"}
			if spec["egress"] != nil {
				want = append(want, "Egress")
			}
			return sameJSON(v, want)
		}},
	},
}

// compiled splits each rule's path once.
type compiledDefault struct {
	steps     []string
	isDefault func(parent map[string]any, v any) bool
}

func compileDefaults(rules []fieldDefault) []compiledDefault {
	out := make([]compiledDefault, len(rules))
	for i, r := range rules {
		out[i] = compiledDefault{steps: strings.Split(r.path, "."), isDefault: r.isDefault}
	}
	return out
}

var (
	compiledContainerDefaults = compileDefaults(containerDefaults)
	compiledPodSpecDefaults   = compileDefaults(podSpecDefaults)
	compiledKindDefaults      = func() map[string][]compiledDefault {
		out := make(map[string][]compiledDefault, len(kindDefaults))
		for k, rules := range kindDefaults {
			out[k] = compileDefaults(rules)
		}
		return out
	}()
)

// removeDefaults removes the fields of obj that equal the server's defaults.
func removeDefaults(obj Object) {
	applyDefaults(obj, compiledKindDefaults[group(obj)+"/"+transform.NestedString(obj, "kind")])
	for _, t := range podTemplates(obj) {
		spec := transform.NestedMap(t, "spec")
		if spec == nil {
			continue
		}
		for _, c := range containers(spec) {
			applyDefaults(c, compiledContainerDefaults)
		}
		applyDefaults(spec, compiledPodSpecDefaults)
	}
}

func applyDefaults(obj map[string]any, rules []compiledDefault) {
	for _, r := range rules {
		removeIfDefault(obj, r.steps, r.isDefault)
	}
}

// removeIfDefault walks steps from node and removes the last one where isDefault says so.
func removeIfDefault(node map[string]any, steps []string, isDefault func(map[string]any, any) bool) {
	key := steps[0]
	if len(steps) == 1 {
		if v, ok := node[key]; ok && isDefault(node, v) {
			delete(node, key)
		}
		return
	}
	next := node[key]
	if steps[1] == "*" {
		items, _ := next.([]any)
		for _, item := range items {
			if m, ok := item.(map[string]any); ok && len(steps) > 2 {
				removeIfDefault(m, steps[2:], isDefault)
			}
		}
		return
	}
	if m, ok := next.(map[string]any); ok {
		removeIfDefault(m, steps[1:], isDefault)
	}
}

// defaultPullPolicy is the pull policy the server gives a container of image: Always for the
// latest tag, written or implied, IfNotPresent for any other tag or a digest.
func defaultPullPolicy(image string) string {
	if strings.Contains(image, "@") {
		image, _, _ = strings.Cut(image, "@")
		if !hasTag(image) {
			return "IfNotPresent"
		}
	}
	if !hasTag(image) || strings.HasSuffix(image, ":latest") {
		return "Always"
	}
	return "IfNotPresent"
}

// hasTag reports whether an image reference without digest names a tag: a ":" after its last
// "/" (one before it is a registry's port).
func hasTag(image string) bool {
	return strings.LastIndex(image, ":") > strings.LastIndex(image, "/")
}

// sameJSON compares decoded JSON values, numbers by value whatever their Go type.
func sameJSON(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if w, ok := b[k]; !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// number returns a decoded JSON number as a float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
