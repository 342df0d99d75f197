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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// shimEnabled says this executable's main calls RunShimIfRequested, so that Command and Probe
// may start it again as the shim. Without it they start nothing: run again, a binary that does
// not call it would run its own main with the plugin's spec in its environment.
var shimEnabled atomic.Bool

// RunShimIfRequested makes this process the shim when Command (or Probe) started it: it
// confines itself, then executes the plugin in its place, and never returns. In any other
// process it returns at once, and lets Command and Probe start this executable again as the
// shim. The binaries that run exec plugins (stencil-apiserver, stencil, and the test binaries
// of the packages that run them, from TestMain) call it first thing in main: nothing of the
// binary's own should run in the shim, and no environment variable makes a binary that does
// not call it one.
func RunShimIfRequested() {
	if dir, ok := os.LookupEnv(probeEnv); ok {
		if err := mountWorkDir(dir, 1<<20, os.Getuid(), os.Getgid()); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	encoded, ok := os.LookupEnv(specEnv)
	if !ok {
		shimEnabled.Store(true)
		return
	}
	// Landlock, seccomp, no_new_privs and the credentials below are per thread; the plugin
	// inherits those of the thread that executes it, so all of it happens on one.
	runtime.LockOSThread()
	var spec shimSpec
	if err := json.Unmarshal([]byte(encoded), &spec); err != nil {
		fail("reading the sandbox spec: %v", err)
	}
	if err := confine(spec); err != nil {
		fail("%v", err)
	}
	execLimited(spec)
}

// errNoShim is Command's error in a binary whose main does not call RunShimIfRequested.
var errNoShim = errors.New("this program cannot confine exec plugins: its main does not call sandbox.RunShimIfRequested")

// fail ends the shim; 126 is the shell's "found but cannot execute".
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sandbox: "+format+"\n", args...)
	os.Exit(126)
}

// confine gives the run its working directory, then applies Landlock, the plugin's user and
// the seccomp filter to the calling thread; execLimited sets the rlimits after it.
func confine(spec shimSpec) error {
	if spec.Tmpfs {
		uid, gid := os.Getuid(), os.Getgid()
		if spec.UID != 0 {
			uid, gid = spec.UID, spec.GID
		}
		if err := mountWorkDir(spec.Dir, spec.DiskBytes, uid, gid); err != nil {
			return err
		}
		// The working directory os/exec entered is the one under the tmpfs now.
		if err := unix.Chdir(spec.Dir); err != nil {
			return fmt.Errorf("entering the working directory: %v", err)
		}
		// What a user other than root kept to mount it (namespaceAttr) ends here: the
		// plugin, not root in its namespace, starts with no capability.
		if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
			return fmt.Errorf("dropping capabilities: %v", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %v", err)
	}
	if abi := landlockABI(); abi > 0 {
		if err := restrict(abi, spec); err != nil {
			return fmt.Errorf("landlock: %v", err)
		}
	}
	if spec.UID != 0 {
		// Raw syscalls: they change this thread only, the one that executes the plugin.
		if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); e != 0 {
			return fmt.Errorf("setgroups: %v", e)
		}
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, uintptr(spec.GID), uintptr(spec.GID), uintptr(spec.GID)); e != 0 {
			return fmt.Errorf("setresgid: %v", e)
		}
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, uintptr(spec.UID), uintptr(spec.UID), uintptr(spec.UID)); e != 0 {
			return fmt.Errorf("setresuid: %v", e)
		}
	}
	if err := installSeccomp(seccompFilter(spec.SingleProcess)); err != nil {
		return fmt.Errorf("seccomp: %v", err)
	}
	return nil
}

// workDirInodeBytes is the disk budget per file of a working directory: a tmpfs inode costs
// the kernel memory that its size does not count.
const workDirInodeBytes = 16 << 10

// mountWorkDir mounts a tmpfs of size bytes, owned by uid and gid, on dir, in this process's
// mount namespace, which stops sharing mounts with the host's first.
func mountWorkDir(dir string, size uint64, uid, gid int) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mount namespace private: %v", err)
	}
	inodes := max(size/workDirInodeBytes, 256)
	options := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0700,uid=%d,gid=%d", size, inodes, uid, gid)
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, options); err != nil {
		return fmt.Errorf("mounting the working directory's tmpfs: %v", err)
	}
	return nil
}

// execLimited sets the rlimits and executes the plugin, allocating nothing in between: the
// limits are the whole process's, and a Go runtime that needs a new span once RLIMIT_AS is set
// dies of ENOMEM when its address space already passes the limit, as the race detector's
// shadow memory always does. Everything execve needs is made first.
func execLimited(spec shimSpec) {
	path, err := unix.BytePtrFromString(spec.Path)
	if err != nil {
		fail("cannot execute the plugin: %v", err)
	}
	argv, err := cStrings(append([]string{spec.Path}, spec.Args...))
	if err != nil {
		fail("cannot execute the plugin: %v", err)
	}
	envv, err := cStrings(spec.Env)
	if err != nil {
		fail("cannot execute the plugin: %v", err)
	}
	type limit struct {
		resource uintptr
		value    unix.Rlimit
	}
	limits := make([]limit, 0, 7)
	for _, l := range []struct {
		resource uintptr
		value    uint64
	}{
		{unix.RLIMIT_CPU, spec.CPUSeconds}, {unix.RLIMIT_AS, spec.AddressSpace}, {unix.RLIMIT_FSIZE, spec.DiskBytes},
		{unix.RLIMIT_NOFILE, spec.OpenFiles}, {unix.RLIMIT_NPROC, spec.Tasks}, {unix.RLIMIT_CORE, 0},
	} {
		if l.value != 0 || l.resource == unix.RLIMIT_CORE {
			limits = append(limits, limit{l.resource, unix.Rlimit{Cur: l.value, Max: l.value}})
		}
	}
	message := make([]byte, 0, 256)
	// Nor may the runtime need memory on its own once RLIMIT_AS is set: no collection may start
	// and the last one's sweep must be over, or the background sweeper, wanting a span for its
	// bookkeeping, dies of ENOMEM in a race with the execve (seen as a flaky "fatal error:
	// runtime: cannot allocate memory" in place of the plugin's own error). runtime.GC returns
	// with every span swept.
	debug.SetGCPercent(-1)
	runtime.GC()
	for i := range limits {
		if _, _, e := unix.RawSyscall6(unix.SYS_PRLIMIT64, 0, limits[i].resource, uintptr(unsafe.Pointer(&limits[i].value)), 0, 0, 0); e != 0 {
			failPreallocated(message, "setting an rlimit: ", e)
		}
	}
	_, _, e := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	failPreallocated(message, "cannot execute the plugin: ", e)
}

// cStrings is ss as the NULL-terminated array of C strings that execve reads.
func cStrings(ss []string) ([]*byte, error) {
	out := make([]*byte, len(ss)+1)
	for i, s := range ss {
		p, err := unix.BytePtrFromString(s)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// failPreallocated ends the shim as fail does, writing into buf, whose capacity was allocated
// before the rlimits were set.
func failPreallocated(buf []byte, what string, e unix.Errno) {
	buf = append(append(append(append(buf[:0], "sandbox: "...), what...), e.Error()...), '\n')
	_, _ = unix.Write(2, buf)
	unix.Exit(126)
}
