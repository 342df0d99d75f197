//go:build !amd64 && !arm64

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

package sandbox

import (
	"errors"

	"golang.org/x/sys/unix"
)

// No filter is written for other architectures: Command refuses to run plugins there.
const seccompSupported = false

func seccompFilter(bool) []unix.SockFilter { return nil }

func installSeccomp([]unix.SockFilter) error {
	return errors.New("no seccomp filter for this architecture")
}
