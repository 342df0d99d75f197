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
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// init turns this process into the shim when Command started it: it confines itself, then
// executes the plugin in its place, and never returns. Every other process goes on.
func init() {
	if os.Getenv(probeEnv) != "" {
		os.Exit(0)
	}
	encoded, ok := os.LookupEnv(specEnv)
	if !ok {
		return
	}
	// Landlock, no_new_privs and the credentials below are per thread; the plugin inherits
	// those of the thread that executes it, so all of it happens on one.
	runtime.LockOSThread()
	var spec Spec
	if err := json.Unmarshal([]byte(encoded), &spec); err != nil {
		fail("reading the sandbox spec: %v", err)
	}
	if err := confine(spec); err != nil {
		fail("%v", err)
	}
	execLimited(spec)
}

// fail ends the shim; 126 is the shell's "found but cannot execute".
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sandbox: "+format+"\n", args...)
	os.Exit(126)
}

// confine applies Landlock and the plugin's user to the calling thread; execLimited sets the
// rlimits after it.
func confine(spec Spec) error {
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
	return nil
}

// execLimited sets the rlimits and executes the plugin, allocating nothing in between: the
// limits are the whole process's, and a Go runtime that needs a new span once RLIMIT_AS is set
// dies of ENOMEM when its address space already passes the limit, as the race detector's
// shadow memory always does. Everything execve needs is made first.
func execLimited(spec Spec) {
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
	limits := make([]limit, 0, 5)
	for _, l := range []struct {
		resource uintptr
		value    uint64
	}{
		{unix.RLIMIT_CPU, spec.CPUSeconds}, {unix.RLIMIT_AS, spec.AddressSpaceBytes},
		{unix.RLIMIT_NOFILE, spec.OpenFiles}, {unix.RLIMIT_NPROC, spec.Processes},
		{unix.RLIMIT_CORE, 0},
	} {
		if l.value != 0 || l.resource == unix.RLIMIT_CORE {
			limits = append(limits, limit{l.resource, unix.Rlimit{Cur: l.value, Max: l.value}})
		}
	}
	message := make([]byte, 0, 256)
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

// landlockABI asks the kernel for its Landlock ABI version; 0 when it has none.
func landlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(v)
}

// fsRights are the filesystem rights each ABI version knows, cumulatively.
func fsRights(abi int) uint64 {
	rights := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		rights |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		rights |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		rights |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return rights
}

// restrict allows reading and executing spec.ReadOnly, everything in spec.Dir, and nothing
// else; from ABI 4 no TCP, from ABI 6 no signals or abstract sockets outside the sandbox.
func restrict(abi int, spec Spec) error {
	handled := fsRights(abi)
	attr := unix.LandlockRulesetAttr{Access_fs: handled}
	size := unsafe.Sizeof(attr.Access_fs)
	if abi >= 4 {
		attr.Access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		size = unsafe.Offsetof(attr.Scoped)
	}
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
		size = unsafe.Sizeof(attr)
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return fmt.Errorf("create ruleset: %v", e)
	}
	defer unix.Close(int(fd))
	readExec := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR)
	rules := map[string]uint64{spec.Dir: handled}
	for _, p := range spec.ReadOnly {
		rules[p] = (rules[p] | readExec) & handled
	}
	for path, access := range rules {
		if err := addRule(int(fd), path, access); err != nil {
			return err
		}
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); e != 0 {
		return fmt.Errorf("restrict self: %v", e)
	}
	return nil
}

// addRule allows access beneath path; a file gets only the rights that apply to files.
func addRule(ruleset int, path string, access uint64) error {
	f, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %v", path, err)
	}
	defer unix.Close(f)
	var st unix.Stat_t
	if err := unix.Fstat(f, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
			unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(f)}
	if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0); e != 0 {
		return fmt.Errorf("allowing %s: %v", path, e)
	}
	return nil
}
