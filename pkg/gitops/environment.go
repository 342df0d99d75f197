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

package gitops

import (
	"fmt"
	"slices"
	"strings"
)

// BuildVariables are the variables of the build environment that a render file may name as
// $(VAR): those Argo CD gives every plugin command (its build environment, KUBE_VERSION and
// KUBE_API_VERSIONS of the destination cluster). No other variable of the process is ever
// read: the sidecar's own environment (credentials, paths) stays out of every render.
var BuildVariables = []string{
	"ARGOCD_APP_NAME",
	"ARGOCD_APP_NAMESPACE",
	"ARGOCD_APP_PROJECT_NAME",
	"ARGOCD_APP_REVISION",
	"ARGOCD_APP_REVISION_SHORT",
	"ARGOCD_APP_REVISION_SHORT_8",
	"ARGOCD_APP_SOURCE_REPO_URL",
	"ARGOCD_APP_SOURCE_PATH",
	"ARGOCD_APP_SOURCE_TARGET_REVISION",
	"KUBE_VERSION",
	"KUBE_API_VERSIONS",
}

// Environment holds the build variables that are set, by name.
type Environment map[string]string

// EnvironmentFrom reads the build variables from lookup (os.LookupEnv).
func EnvironmentFrom(lookup func(string) (string, bool)) Environment {
	env := Environment{}
	for _, name := range BuildVariables {
		if v, ok := lookup(name); ok {
			env[name] = v
		}
	}
	return env
}

// Expand replaces each $(VAR) of s that names a build variable with its value, and $$ with $,
// as Kubernetes expands a container's env and command; $(VAR) of any other name stays as
// written. A build variable that is not set is an error: rendering outside the tool that sets
// it (stencil render on a laptop) must say so rather than leave $(ARGOCD_APP_NAME) in an object.
func (e Environment) Expand(s string) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				break
			}
			name := s[i+2 : i+2+end]
			if !slices.Contains(BuildVariables, name) {
				break
			}
			v, ok := e[name]
			if !ok {
				return "", fmt.Errorf("$(%s) is not set: the plugin gets it from Argo CD; to render as Argo CD would, set it in the environment", name)
			}
			b.WriteString(v)
			i += 2 + end
			continue
		}
		b.WriteByte('$')
	}
	return b.String(), nil
}
