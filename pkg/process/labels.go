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

package process

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// validateLabels is metav1validation.ValidateLabels, whose regular expressions cost a small
// template a twentieth of its processing: labels of plain characters (see plainLabelKey),
// nearly all of them, are known valid without them.
func validateLabels(labels map[string]string, path *field.Path) field.ErrorList {
	for k, v := range labels {
		if !plainLabelKey(k) || !plainLabelPart(v, true) {
			return metav1validation.ValidateLabels(labels, path)
		}
	}
	return nil
}

// plainLabelKey reports whether k is a plain label name (plainLabelPart), alone or behind a
// prefix such as app.openshift.io/: a DNS subdomain of at most 253 bytes, whose parts between
// dots are lowercase letters, digits and '-' that begin and end with a letter or digit. That
// is the syntax of a label key.
func plainLabelKey(k string) bool {
	prefix, name, prefixed := strings.Cut(k, "/")
	if !prefixed {
		return plainLabelPart(k, false)
	}
	if prefix == "" || len(prefix) > 253 || !plainLabelPart(name, false) {
		return false
	}
	start := 0 // of the part of the prefix being read
	for i := 0; i <= len(prefix); i++ {
		if i < len(prefix) && prefix[i] != '.' {
			if c := prefix[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		if i == start || prefix[start] == '-' || prefix[i-1] == '-' {
			return false
		}
		start = i + 1
	}
	return true
}

// plainLabelPart reports whether s is at most 63 letters, digits, '-', '_' and '.' that begin
// and end with a letter or digit: the syntax of a label value, and of a label key without a
// prefix (emptyOK is for values).
func plainLabelPart(s string, emptyOK bool) bool {
	if s == "" {
		return emptyOK
	}
	if len(s) > 63 || !isAlphanumeric(s[0]) || !isAlphanumeric(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isAlphanumeric(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// labelTarget is a node in the tree of paths, from an object's root, where object labels go.
type labelTarget struct {
	key string
	// create makes the member when it is missing (and there are labels to add), so that every
	// object gets metadata.labels and an existing pod template gets its labels. Selectors are
	// never created: a Service without selector must stay without.
	create bool
	// labels marks a label map: the labels are merged into it.
	labels   bool
	children []*labelTarget
}

// child returns the target under t for the member named key, and its index.
func (t *labelTarget) child(key []byte) (int, *labelTarget) {
	for i, c := range t.children {
		if c.key == string(key) {
			return i, c
		}
	}
	return -1, nil
}

func target(key string, create bool, children ...*labelTarget) *labelTarget {
	return &labelTarget{key: key, create: create, children: children}
}

func labelMap(key string, create bool) *labelTarget {
	return &labelTarget{key: key, create: create, labels: true}
}

var (
	metadataLabels = target("metadata", true, labelMap("labels", true))
	podTemplate    = target("template", false, metadataLabels)
	labelSelector  = target("selector", false, labelMap("matchLabels", true))

	// metadataTargets is what every object gets, and all an OpenShift Template's labels reach.
	metadataTargets = target("", false, metadataLabels)
	// workloadTargets: Deployment, ReplicaSet, StatefulSet, DaemonSet and Job.
	workloadTargets = target("", false, metadataLabels, target("spec", false, labelSelector, podTemplate))
	// replicationControllerTargets: its selector is a plain map.
	replicationControllerTargets = target("", false, metadataLabels,
		target("spec", false, labelMap("selector", false), podTemplate))
	serviceTargets = target("", false, metadataLabels, target("spec", false, labelMap("selector", false)))
	cronJobTargets = target("", false, metadataLabels,
		target("spec", false, target("jobTemplate", false, target("spec", false, labelSelector, podTemplate))))
)

// labelTargetsFor returns where object labels go in an object of this apiVersion and kind.
func labelTargetsFor(d Dialect, apiVersion, kind []byte) *labelTarget {
	if d == OpenShift {
		return metadataTargets
	}
	var group []byte
	if slash := bytes.IndexByte(apiVersion, '/'); slash >= 0 {
		group = apiVersion[:slash]
	}
	core := len(group) == 0
	apps := string(group) == "apps"
	switch k := string(kind); {
	case core && k == "Service":
		return serviceTargets
	case core && k == "ReplicationController":
		return replicationControllerTargets
	case (apps || string(group) == "extensions") && (k == "Deployment" || k == "ReplicaSet" || k == "DaemonSet"),
		apps && k == "StatefulSet",
		string(group) == "batch" && k == "Job":
		return workloadTargets
	case string(group) == "batch" && k == "CronJob":
		return cronJobTargets
	}
	return metadataTargets
}

// groupify gives the OpenShift kinds of the legacy group-less API their group, as OpenShift's
// processor does after substitution: DeploymentConfig v1 becomes apps.openshift.io/v1.
func groupify(apiVersion, kind []byte) (string, bool) {
	group, ok := legacyGroup(apiVersion, kind)
	if !ok {
		return "", false
	}
	return group + "/" + string(apiVersion), true
}

// legacyGroup returns the group groupify puts before apiVersion.
func legacyGroup(apiVersion, kind []byte) (string, bool) {
	if bytes.IndexByte(apiVersion, '/') >= 0 {
		return "", false
	}
	group, ok := legacyOpenShiftKinds()[string(kind)]
	return group, ok
}

// legacyOpenShiftKinds maps the kinds of OpenShift's legacy group-less API to their groups.
var legacyOpenShiftKinds = sync.OnceValue(func() map[string]string {
	groups := map[string][]string{
		"apps.openshift.io": {"DeploymentConfig", "DeploymentConfigList", "DeploymentConfigRollback",
			"DeploymentLog", "DeploymentRequest"},
		"authorization.openshift.io": {"ClusterRoleBinding", "ClusterRoleBindingList", "ClusterRole",
			"ClusterRoleList", "RoleBindingRestriction", "RoleBindingRestrictionList", "RoleBinding",
			"RoleBindingList", "Role", "RoleList", "SubjectRulesReview", "SelfSubjectRulesReview",
			"ResourceAccessReview", "LocalResourceAccessReview", "SubjectAccessReview",
			"LocalSubjectAccessReview"},
		"build.openshift.io": {"BuildConfig", "BuildConfigList", "Build", "BuildList",
			"BinaryBuildRequestOptions", "BuildLog", "BuildRequest"},
		"image.openshift.io": {"Image", "ImageList", "ImageSignature", "ImageStreamImage",
			"ImageStreamImport", "ImageStreamMapping", "ImageStream", "ImageStreamList",
			"ImageStreamTag", "ImageStreamTagList"},
		"network.openshift.io": {"ClusterNetwork", "ClusterNetworkList", "EgressNetworkPolicy",
			"EgressNetworkPolicyList", "HostSubnet", "HostSubnetList", "NetNamespace", "NetNamespaceList"},
		"oauth.openshift.io": {"OAuthAccessToken", "OAuthAccessTokenList", "OAuthAuthorizeToken",
			"OAuthAuthorizeTokenList", "OAuthClientAuthorization", "OAuthClientAuthorizationList",
			"OAuthClient", "OAuthClientList"},
		"project.openshift.io": {"Project", "ProjectList", "ProjectRequest"},
		"quota.openshift.io": {"ClusterResourceQuota", "ClusterResourceQuotaList",
			"AppliedClusterResourceQuota", "AppliedClusterResourceQuotaList"},
		"route.openshift.io": {"Route", "RouteList"},
		"security.openshift.io": {"SecurityContextConstraints", "SecurityContextConstraintsList",
			"PodSecurityPolicySubjectReview", "PodSecurityPolicySelfSubjectReview", "PodSecurityPolicyReview"},
		"template.openshift.io": {"Template", "TemplateList"},
		"user.openshift.io": {"Group", "GroupList", "Identity", "IdentityList", "UserIdentityMapping",
			"User", "UserList"},
	}
	kinds := map[string]string{}
	for group, names := range groups {
		for _, kind := range names {
			kinds[kind] = group
		}
	}
	return kinds
})

// labelSet is one request's object labels in the forms the executor writes them: members
// (`"key":"value"`, sorted by key), index (a member by key) and object (all of them as one
// JSON object). It is not changed once built, so requests may share one (Plan.fixedLabels).
type labelSet struct {
	members []labelMember
	index   map[string]int
	object  []byte
}

type labelMember struct {
	key    string
	member []byte
}

// newLabelSet returns the labelSet of labels, nil for none.
func newLabelSet(labels map[string]string) *labelSet {
	if len(labels) == 0 {
		return nil
	}
	set := &labelSet{members: make([]labelMember, 0, len(labels)), index: make(map[string]int, len(labels))}
	size := 2
	for k, v := range labels {
		set.members = append(set.members, labelMember{key: k})
		size += len(k) + len(v) + 6 // quotes, colon, comma; an escape grows the object
	}
	slices.SortFunc(set.members, func(a, b labelMember) int { return strings.Compare(a.key, b.key) })
	// Each member is written once, into the object, and is the object's bytes: one
	// allocation for the set, not one for each label besides.
	bounds := make([]int, 0, 2*len(set.members))
	set.object = append(make([]byte, 0, size), '{')
	for i := range set.members {
		l := &set.members[i]
		if i > 0 {
			set.object = append(set.object, ',')
		}
		bounds = append(bounds, len(set.object))
		set.object = jsonbytes.AppendQuoted(set.object, l.key)
		set.object = append(set.object, ':')
		set.object = jsonbytes.AppendQuoted(set.object, labels[l.key])
		bounds = append(bounds, len(set.object))
		set.index[l.key] = i
	}
	set.object = append(set.object, '}')
	set.object = set.object[:len(set.object):len(set.object)]
	for i := range set.members {
		// Full slices: whatever reads a member on (a tree of a reshaped object) cannot append
		// into another request's bytes, nor into the object's.
		start, end := bounds[2*i], bounds[2*i+1]
		set.members[i].member = set.object[start:end:end]
	}
	return set
}

// useLabels makes set the labels x writes.
func (x *executor) useLabels(set *labelSet) {
	if set == nil {
		return
	}
	x.labels, x.labelIndex, x.labelObject = set.members, set.index, set.object
	if cap(x.used) < len(set.members) {
		x.used = make([]bool, len(set.members))
	}
	x.used = x.used[:len(set.members)]
	clear(x.used)
}

// fixLabels builds, at compile time, the labels of every request that adds none, when no
// label of the template takes a value: the same for each such request, they are built once.
func (p *Plan) fixLabels() {
	labels := make(map[string]string, len(p.labels))
	for _, l := range p.labels {
		if l.substituted {
			return
		}
		k, kOK := renderText(l.key, nil, maxLabelBytes)
		v, vOK := renderText(l.value, nil, maxLabelBytes)
		if !kOK || !vOK {
			return // objectLabels words it for each request
		}
		labels[k] = v
	}
	p.fixedLabels = newLabelSet(labels)
}

// TemplateLabels returns the template's own labels substituted with the final values of an
// Execute (its Result's Parameters), as OpenShift's processedtemplates answers them. It is
// apart from Execute so that requests that do not answer them do not pay for them.
func (p *Plan) TemplateLabels(params []templates.Parameter) map[string]string {
	if len(p.labels) == 0 || len(params) != len(p.params) {
		return nil
	}
	values := make([]string, len(params))
	for i := range params {
		values[i] = params[i].Value
	}
	labels := make(map[string]string, len(p.labels))
	for _, l := range p.labels {
		k, _ := renderText(l.key, values, maxLabelBytes)
		v, _ := renderText(l.value, values, maxLabelBytes)
		labels[k] = v
	}
	return labels
}
