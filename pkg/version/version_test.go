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

package version

import (
	"runtime/debug"
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

func TestLinkerValuesWin(t *testing.T) {
	info := Info{GitVersion: "v1.2.3", GitCommit: "abc", GitTreeState: "clean", BuildDate: "2026-01-02T03:04:05Z"}
	fillFromBuildInfo(&info, &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-2026-deadbeef"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "deadbeef"}, {Key: "vcs.modified", Value: "true"}}})
	if info.GitVersion != "v1.2.3" || info.GitCommit != "abc" || info.GitTreeState != "clean" {
		t.Fatalf("build info overrode the linker's values: %+v", info)
	}
}

func TestBuildInfoFillsTheRest(t *testing.T) {
	var info Info
	fillFromBuildInfo(&info, &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102030405-deadbeef+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "deadbeef"}, {Key: "vcs.modified", Value: "true"},
			{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}}})
	want := Info{GitVersion: "v0.0.0-20260102030405-deadbeef+dirty", GitCommit: "deadbeef", GitTreeState: "dirty", BuildDate: "2026-01-02T03:04:05Z"}
	if info != want {
		t.Fatalf("got %+v, want %+v", info, want)
	}
	var devel Info
	fillFromBuildInfo(&devel, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}})
	if devel.GitVersion != "" {
		t.Fatalf("(devel) is not a version: %q", devel.GitVersion)
	}
}

func TestString(t *testing.T) {
	s := Info{GitVersion: "v1.2.3", GitCommit: "abc", GitTreeState: "dirty", GoVersion: "go1.26", Platform: "linux/amd64"}.String()
	for _, want := range []string{"v1.2.3", "commit abc (dirty)", "go1.26 linux/amd64"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
}

// TestGitVersionIsSemantic: whatever was stamped, GitVersion parses as a semantic version, as
// kubectl version parses the server's (k8s.io/apimachinery's ParseSemantic). Before, a checkout
// without tags was stamped with `git describe --always`'s bare commit, "7189217", and kubectl
// version failed with `illegal version string "7189217"`.
func TestGitVersionIsSemantic(t *testing.T) {
	for stamped, want := range map[string]string{
		"":                                     "v0.0.0-unknown",
		"7189217":                              "v0.0.0-unknown+7189217",
		"v0.3.0":                               "v0.3.0",
		"v0.3.0-5+84c76d1142ea4d":              "v0.3.0-5+84c76d1142ea4d",
		"v0.3.0-alpha.1.5+84c76d1142ea4d":      "v0.3.0-alpha.1.5+84c76d1142ea4d",
		"v0.0.0-master+84c76d1142ea4d-dirty":   "v0.0.0-master+84c76d1142ea4d-dirty",
		"v0.3.0-dirty":                         "v0.3.0-dirty",
		"v0.0.0-20260102030405-deadbeef+dirty": "v0.0.0-20260102030405-deadbeef+dirty",
		"v1.2":                                 "v0.0.0-unknown+v1-2",
		"1.2.3":                                "v1.2.3",
		"v01.2.3":                              "v0.0.0-unknown+v01-2-3",
		"v1.2.3-01":                            "v0.0.0-unknown+v1-2-3-01",
		"v1.2.3+":                              "v0.0.0-unknown+v1-2-3-",
		"v1.2.3-a..b":                          "v0.0.0-unknown+v1-2-3-a--b",
		"release 7 (final)":                    "v0.0.0-unknown+release-7--final-",
	} {
		got := semantic(stamped)
		if got != want {
			t.Errorf("%q: GitVersion %q, want %q", stamped, got, want)
		}
		if _, err := utilversion.ParseSemantic(got); err != nil {
			t.Errorf("%q: kubectl cannot read %q: %v", stamped, got, err)
		}
		if _, err := utilversion.ParseSemantic(stamped); (err == nil) != (strings.TrimPrefix(got, "v") == strings.TrimPrefix(stamped, "v")) {
			t.Errorf("%q: isSemantic says %v, apimachinery %v", stamped, got == stamped, err)
		}
	}
}
