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

// Package version says which build of Stencil is running. `make build` and `make image` set
// the variables below with -ldflags -X from `git describe`; a plain `go build` falls back to
// what the Go toolchain recorded about the checkout.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at build time: go build -ldflags "-X stencil.dev/stencil/pkg/version.gitVersion=v0.1.0 ...".
var (
	gitVersion   = ""
	gitCommit    = ""
	gitTreeState = ""
	buildDate    = ""
)

// defaultVersion is reported when neither the linker nor the toolchain knew better, for
// example for a build outside any git checkout.
const defaultVersion = "v0.0.0-unknown"

// Info describes one build.
type Info struct {
	// GitVersion is the output of `git describe --tags --always --dirty` at build time.
	GitVersion string `json:"gitVersion"`
	// GitCommit is the full commit hash.
	GitCommit string `json:"gitCommit"`
	// GitTreeState is "clean" or "dirty".
	GitTreeState string `json:"gitTreeState"`
	// BuildDate is the time of the build (or of the commit, for reproducible builds), RFC 3339.
	BuildDate string `json:"buildDate"`
	// GoVersion and Platform are those of the toolchain that built the binary.
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the build's version; fields the linker did not set come from the build
// information the Go toolchain embeds (vcs.revision, vcs.time, vcs.modified).
func Get() Info {
	info := Info{
		GitVersion:   gitVersion,
		GitCommit:    gitCommit,
		GitTreeState: gitTreeState,
		BuildDate:    buildDate,
		GoVersion:    runtime.Version(),
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		fillFromBuildInfo(&info, bi)
	}
	if info.GitVersion == "" {
		info.GitVersion = defaultVersion
	}
	return info
}

func fillFromBuildInfo(info *Info, bi *debug.BuildInfo) {
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if info.GitCommit == "" {
		info.GitCommit = settings["vcs.revision"]
	}
	if info.BuildDate == "" {
		info.BuildDate = settings["vcs.time"]
	}
	if info.GitTreeState == "" {
		switch settings["vcs.modified"] {
		case "true":
			info.GitTreeState = "dirty"
		case "false":
			info.GitTreeState = "clean"
		}
	}
	// The toolchain names a checkout without tags v0.0.0-<time>-<commit>[+dirty]; "(devel)"
	// means it knew nothing.
	if info.GitVersion == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		info.GitVersion = bi.Main.Version
	}
}

// String is the one line that --version prints.
func (i Info) String() string {
	s := i.GitVersion
	if i.GitCommit != "" {
		s += " commit " + i.GitCommit
		if i.GitTreeState != "" {
			s += " (" + i.GitTreeState + ")"
		}
	}
	if i.BuildDate != "" {
		s += " built " + i.BuildDate
	}
	return fmt.Sprintf("%s %s %s", s, i.GoVersion, i.Platform)
}
