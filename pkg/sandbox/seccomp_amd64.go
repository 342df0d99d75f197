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

import "golang.org/x/sys/unix"

// auditArch is the architecture whose system calls the filter knows; foreignSyscalls is
// the first number of the x32 ABI, whose calls share it; forkSyscalls start a process
// without clone.
const (
	seccompSupported = true
	auditArch        = unix.AUDIT_ARCH_X86_64
	foreignSyscalls  = 0x40000000
)

var forkSyscalls = []uintptr{unix.SYS_FORK, unix.SYS_VFORK}
