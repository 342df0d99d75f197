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
// the variables below with -ldflags -X from hack/version.sh (a semantic version made of `git
// describe`, as Kubernetes' components are stamped); a plain `go build` falls back to what the
// Go toolchain recorded about the checkout. Whatever was stamped, GitVersion is a semantic
// version, which kubectl version and every client of /version parse.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
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
	// GitVersion is the semantic version of the build (hack/version.sh): v0.3.0,
	// v0.3.0-5+84c76d1142ea4d after a tag, v0.0.0-master+84c76d1142ea4d without one.
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
	info.GitVersion = semantic(info.GitVersion)
	return info
}

// semantic returns v if it is a semantic version (with the leading v Kubernetes writes), else
// the default version carrying v as its build metadata: a stamp such as a bare commit
// ("7189217", what `git describe --always` gives without a tag) must not make kubectl fail
// with "illegal version string".
func semantic(v string) string {
	if v == "" {
		return defaultVersion
	}
	if isSemantic(v) {
		return v
	}
	if isSemantic("v" + v) {
		return "v" + v
	}
	meta := []byte(v)
	for i, c := range meta {
		if !identifierByte(c) {
			meta[i] = '-'
		}
	}
	return defaultVersion + "+" + string(meta)
}

// isSemantic reports whether v is vMAJOR.MINOR.PATCH[-PRERELEASE][+BUILD] as semver 2.0.0
// writes it: numbers without leading zeros, dot-separated identifiers of [0-9A-Za-z-].
func isSemantic(v string) bool {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return false
	}
	rest, build, hasBuild := strings.Cut(rest, "+")
	core, pre, hasPre := strings.Cut(rest, "-")
	numbers := strings.Split(core, ".")
	if len(numbers) != 3 {
		return false
	}
	for _, n := range numbers {
		if !numeric(n) {
			return false
		}
	}
	return (!hasPre || identifiers(pre, true)) && (!hasBuild || identifiers(build, false))
}

// identifiers reports whether s is dot-separated non-empty identifiers; numeric ones of a
// pre-release must not have leading zeros.
func identifiers(s string, prerelease bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		allDigits := true
		for i := 0; i < len(id); i++ {
			if !identifierByte(id[i]) {
				return false
			}
			allDigits = allDigits && id[i] >= '0' && id[i] <= '9'
		}
		if prerelease && allDigits && !numeric(id) {
			return false
		}
	}
	return true
}

func numeric(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func identifierByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-'
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
