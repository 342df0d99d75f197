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

package server

import (
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	basecompatibility "k8s.io/component-base/compatibility"

	"stencil.dev/stencil/pkg/version"
)

// stampedVersion is the generic server's effective version with /version answering for this
// build: the generic server fills /version from component-base's build variables, which only
// Kubernetes' own builds stamp, so it said v0.0.0-master+$Format:%H$ although make build stamps
// pkg/version. Major and minor stay those of the Kubernetes libraries: they tell which API
// machinery serves, and kubectl compares them with its own to warn about skew.
type stampedVersion struct {
	basecompatibility.EffectiveVersion
}

// Info is the generic server's answer with the build's version, commit, tree state and date.
func (v stampedVersion) Info() *apimachineryversion.Info {
	info := v.EffectiveVersion.Info()
	if info == nil {
		info = &apimachineryversion.Info{}
	}
	build := version.Get()
	info.GitVersion, info.GitCommit, info.GitTreeState, info.BuildDate = build.GitVersion, build.GitCommit, build.GitTreeState, build.BuildDate
	info.GoVersion, info.Platform = build.GoVersion, build.Platform
	return info
}
