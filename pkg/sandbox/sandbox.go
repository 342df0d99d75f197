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

// Package sandbox runs an executable confined, without privileges and without a container
// runtime, with what the kernel offers an unprivileged process:
//
//   - its own user, network, PID and IPC namespaces when unprivileged user namespaces are
//     allowed: no network (only a loopback that is down), no process of the host to see or
//     signal, and every process it starts killed with it;
//   - Landlock (Linux 5.13+): no file read, written or executed outside the directories the
//     caller names; from ABI 4 no TCP bind or connect; from ABI 6 no signal to, and no
//     abstract socket of, a process outside the sandbox;
//   - rlimits on CPU time, address space, open files and (in its own user namespace, where
//     they are counted apart) processes;
//   - its own process group, a clean environment and its own working directory.
//
// os/exec cannot set rlimits or Landlock between fork and exec, so the command runs the
// current executable again as a shim (this package's init sees the marker in its
// environment), which confines itself, then executes the target in its place. Every binary
// that links this package (the server, the CLI, tests) can therefore be the shim.
//
// Probe says which layers this kernel gives; a layer that is missing is left out, never
// faked, and the caller reports it.
package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// Spec is one confined run.
type Spec struct {
	// Path is the executable, absolute.
	Path string
	// Args are its arguments after argv[0].
	Args []string
	// Env is its whole environment.
	Env []string
	// Dir is its working directory, which it may read and write.
	Dir string
	// ReadOnly are the directories (or files) it may read and execute besides Dir.
	ReadOnly []string
	// CPUSeconds, AddressSpaceBytes, OpenFiles and Processes are its rlimits; zero is no
	// limit.
	CPUSeconds, AddressSpaceBytes, OpenFiles, Processes uint64
	// UID and GID, when not zero, are the user and group it runs as (set by Command).
	UID, GID int
}

// Features are the confinement layers this kernel gives an unprivileged process.
type Features struct {
	// Namespaces: unprivileged user namespaces, with network, PID and IPC namespaces in them.
	Namespaces bool
	// LandlockABI is the Landlock ABI version, 0 when Landlock is not available.
	LandlockABI int
}

// String lists the layers, for the server's log and its policy report.
func (f Features) String() string {
	var layers []string
	if f.Namespaces {
		layers = append(layers, "user+network+pid namespaces")
	}
	if f.LandlockABI > 0 {
		layers = append(layers, fmt.Sprintf("landlock ABI %d", f.LandlockABI))
	}
	layers = append(layers, "rlimits", "process group")
	return strings.Join(layers, ", ")
}

// The environment variables that make a run of this executable the shim.
const (
	specEnv  = "STENCIL_SANDBOX_SPEC"
	probeEnv = "STENCIL_SANDBOX_PROBE"
)

var (
	probeOnce sync.Once
	features  Features
)

// Probe returns the layers available, testing them once per process.
func Probe() Features {
	probeOnce.Do(func() {
		features.LandlockABI = landlockABI()
		cmd := exec.Command("/proc/self/exe")
		cmd.Env = []string{probeEnv + "=1"}
		cmd.SysProcAttr = namespaceAttr()
		features.Namespaces = cmd.Run() == nil
	})
	return features
}

// Command returns the command that runs spec confined. The caller sets its standard streams,
// starts it, and ends it with Kill.
func Command(spec Spec) (*exec.Cmd, error) {
	f := Probe()
	if os.Getuid() == 0 {
		spec.UID, spec.GID = PluginUID, PluginUID
	}
	if !f.Namespaces {
		// Counted per user across the host, a process limit would count the server's own
		// threads too.
		spec.Processes = 0
	}
	encoded, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{"stencil-sandbox"}
	cmd.Env = []string{specEnv + "=" + string(encoded)}
	cmd.Dir = spec.Dir
	if f.Namespaces {
		cmd.SysProcAttr = namespaceAttr()
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return cmd, nil
}

// Kill kills every process of a started run: its process group, so that a plugin's children
// die with it. In its own PID namespace the group's leader is the namespace's init, whose
// death takes every process in the namespace, even one that left the group.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// PluginUID is the user a plugin runs as when the server runs as root: nobody, so that file
// permissions protect what Landlock would miss. The shim drops to it just before it executes
// the plugin, after confining itself.
const PluginUID = 65534

// namespaceAttr puts the child in new user, network, PID and IPC namespaces, where the
// caller's user is itself (and, for root, nobody is nobody, for the shim to drop to).
func namespaceAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	attr := &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
	if uid == 0 {
		attr.UidMappings = append(attr.UidMappings, syscall.SysProcIDMap{ContainerID: PluginUID, HostID: PluginUID, Size: 1})
		attr.GidMappings = append(attr.GidMappings, syscall.SysProcIDMap{ContainerID: PluginUID, HostID: PluginUID, Size: 1})
		attr.GidMappingsEnableSetgroups = true
	}
	return attr
}

// RunsAsNobody reports whether plugins run as PluginUID, so that their working directory
// must be theirs.
func RunsAsNobody() bool { return os.Getuid() == 0 }
