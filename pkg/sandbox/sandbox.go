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
//   - its own user, network, PID, IPC and mount namespaces when unprivileged user namespaces
//     are allowed: no network (only a loopback that is down), no process of the host to see
//     or signal, every process it starts killed with it, and a working directory on a tmpfs
//     of its own whose size is the run's disk budget;
//   - Landlock (Linux 5.13+): no file read, written or executed outside the directories the
//     caller names; from ABI 4 no TCP bind or connect; from ABI 6 no signal to, and no
//     abstract socket of, a process outside the sandbox;
//   - a seccomp filter (seccomp.go): no AF_UNIX socket, no io_uring, no new namespaces, no
//     memory outside RLIMIT_AS, and, unless the run may have several, no second process;
//   - rlimits on CPU time, address space, file size, open files and (in its own user
//     namespace, where they are counted apart) processes;
//   - its own process group, a clean environment and its own working directory.
//
// How the memory of a run is bounded across its processes: a run of one process (the
// default) cannot start another, and its threads share the one address space RLIMIT_AS
// bounds; a run of n processes gets RLIMIT_NPROC n, counting threads too, and RLIMIT_AS
// memory/n each. The kernel lends no cgroup to an unprivileged server in the places this
// runs (a container's cgroup file system is read-only), so none is used.
//
// os/exec cannot set rlimits, Landlock or seccomp between fork and exec, so the command runs
// the current executable again as a shim, which confines itself, then executes the target in
// its place. A binary is the shim only if its main says it may be: it calls
// RunShimIfRequested first thing (stencil-apiserver and stencil do, and the test binaries
// that run plugins, from TestMain), which sees the marker in its environment; in a binary that
// does not, Command refuses to run anything and the marker does nothing.
//
// Probe says which layers this kernel gives; a layer that is missing is left out, never
// faked, and the caller reports it; Command refuses a run whose bounds it cannot keep.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
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
	// CPUSeconds and OpenFiles are its rlimits; zero is no limit.
	CPUSeconds, OpenFiles uint64
	// MemoryBytes bounds the address space of all its processes together; zero is no limit.
	MemoryBytes uint64
	// Processes is how many processes it may have at once. 0 or 1: it may not start any
	// (threads are free and share the one address space). More: it may, and threads count
	// as processes, so that each of them gets MemoryBytes/Processes.
	Processes uint64
	// DiskBytes bounds what it may write into Dir, every file together, and each file
	// (RLIMIT_FSIZE); zero is no limit.
	DiskBytes uint64
}

// singleProcessThreads bounds the threads of a run of one process, where its own user
// namespace counts them apart: they cost no memory beyond the shared address space, but
// each is a task of the kernel's.
const singleProcessThreads = 256

// shimSpec is what the shim is told: the run and how Command chose to confine it.
type shimSpec struct {
	Spec
	// UID and GID, when not zero, are the user and group the plugin runs as.
	UID, GID int
	// Tmpfs mounts a tmpfs of DiskBytes on Dir in the run's mount namespace; ReadOnlyDir
	// gives Dir no right to create anything, where no tmpfs can bound it.
	Tmpfs, ReadOnlyDir bool
	// SingleProcess refuses new processes (seccomp).
	SingleProcess bool
	// AddressSpace and Tasks are RLIMIT_AS and RLIMIT_NPROC; zero is none.
	AddressSpace, Tasks uint64
}

// Features are the confinement layers this kernel gives an unprivileged process.
type Features struct {
	// Namespaces: unprivileged user namespaces, with network, PID, IPC and mount namespaces
	// in them, and a tmpfs mounted in the last.
	Namespaces bool
	// LandlockABI is the Landlock ABI version, 0 when Landlock is not available.
	LandlockABI int
	// Seccomp: this server's seccomp filter can be installed (amd64 and arm64 kernels with
	// seccomp).
	Seccomp bool
}

// String lists the layers, for the server's log and its policy report.
func (f Features) String() string {
	var layers []string
	if f.Namespaces {
		layers = append(layers, "user+network+pid+mount namespaces (a tmpfs working directory)")
	}
	if f.LandlockABI > 0 {
		layers = append(layers, fmt.Sprintf("landlock ABI %d", f.LandlockABI))
	}
	if f.Seccomp {
		layers = append(layers, "seccomp")
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

// Probe returns the layers available, testing them once per process: a child in the
// namespaces mounts a tmpfs as a run would. That child is this executable again, so in a
// binary that does not call RunShimIfRequested no namespace is found (nor would a run start).
func Probe() Features {
	probeOnce.Do(func() {
		features.LandlockABI = landlockABI()
		_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
		features.Seccomp = seccompSupported && err == nil
		if !shimEnabled.Load() {
			return
		}
		dir, err := os.MkdirTemp("", "stencil-sandbox-probe-")
		if err != nil {
			return
		}
		defer os.Remove(dir)
		cmd := exec.Command("/proc/self/exe")
		cmd.Env = []string{probeEnv + "=" + dir}
		cmd.SysProcAttr = namespaceAttr()
		features.Namespaces = cmd.Run() == nil
	})
	return features
}

// Command returns the command that runs spec confined, or why the kernel cannot keep its
// bounds. The caller sets its standard streams, starts it, and ends it with Kill.
func Command(spec Spec) (*exec.Cmd, error) { return command(spec, Probe()) }

// command is Command with the layers f.
func command(spec Spec, f Features) (*exec.Cmd, error) {
	if !shimEnabled.Load() {
		return nil, errNoShim
	}
	if !f.Seccomp {
		return nil, errors.New("exec plugins need the server's seccomp filter, which this kernel or architecture does not take (amd64 and arm64 Linux with seccomp do)")
	}
	s := shimSpec{Spec: spec, SingleProcess: spec.Processes <= 1, AddressSpace: spec.MemoryBytes}
	if os.Getuid() == 0 {
		s.UID, s.GID = PluginUID, PluginUID
	}
	switch {
	case !s.SingleProcess && !f.Namespaces:
		// Counted per user across the host, a process limit would count the server's own
		// threads (or every plugin run's, as nobody) too.
		return nil, fmt.Errorf("plugin runs of %d processes need user namespaces, in which their processes are counted apart, and this kernel (or the seccomp profile of the server's container) gives none: allow them, or let a run have one process", spec.Processes)
	case !s.SingleProcess:
		s.Tasks, s.AddressSpace = spec.Processes, spec.MemoryBytes/spec.Processes
	case f.Namespaces:
		s.Tasks = singleProcessThreads
	}
	if spec.DiskBytes > 0 {
		// Without a mount namespace nothing bounds the files of a directory together, so the
		// plugin gets none it may write in (where Landlock, or its user, can say so).
		s.Tmpfs, s.ReadOnlyDir = f.Namespaces, !f.Namespaces
	}
	if s.UID != 0 && !s.ReadOnlyDir {
		if err := os.Chown(spec.Dir, s.UID, s.GID); err != nil {
			return nil, fmt.Errorf("giving the working directory to the plugin's user: %w", err)
		}
	}
	encoded, err := json.Marshal(s)
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

// namespaceAttr puts the child in new user, network, PID, IPC and mount namespaces, where
// the caller's user is itself (and, for root, nobody is nobody, for the shim to drop to). A
// user other than root keeps CAP_SYS_ADMIN of the new user namespace across the execve of
// the shim, as an ambient capability, to mount the working directory's tmpfs; the shim
// drops it before it executes the plugin.
func namespaceAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	attr := &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
	if uid == 0 {
		attr.UidMappings = append(attr.UidMappings, syscall.SysProcIDMap{ContainerID: PluginUID, HostID: PluginUID, Size: 1})
		attr.GidMappings = append(attr.GidMappings, syscall.SysProcIDMap{ContainerID: PluginUID, HostID: PluginUID, Size: 1})
		attr.GidMappingsEnableSetgroups = true
	} else {
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	return attr
}

// RunsAsNobody reports whether plugins run as PluginUID, so that what they must read has to
// be readable by nobody.
func RunsAsNobody() bool { return os.Getuid() == 0 }
