//go:build amd64 || arm64

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
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter closes what rlimits, Landlock and namespaces leave open, with a small
// classic BPF program the shim installs on the thread that executes the plugin (so that the
// plugin and everything it starts inherit it):
//
//   - no AF_UNIX socket: a pathname socket of the host is reached by connect(), which
//     Landlock does not mediate, and an abstract one from the host's network namespace
//     whenever the run has none of its own; socketpair stays allowed, since its two ends
//     reach nothing else;
//   - no io_uring, whose operations (socket, connect, open) would bypass the filter;
//   - no new namespaces (unshare, setns, clone with a CLONE_NEW* flag): in a user namespace
//     of its own a plugin could mount a tmpfs of any size;
//   - no memory that RLIMIT_AS does not count: memfd_create and memfd_secret (written to,
//     not mapped, a memfd holds memory outside any address space), System V shared memory
//     (which outlives its detaching) and message queues;
//   - no ptrace, process_vm_readv/writev or pidfd_getfd, which a plugin could use on another
//     run that shares its user where it has no PID namespace;
//   - clone3 answers ENOSYS, since a filter cannot read its flags from memory; the C library
//     and Go fall back to clone, whose flags it reads;
//   - when the run may have one process only, no fork, vfork or clone without CLONE_THREAD:
//     threads share the process's address space, so RLIMIT_AS bounds them all;
//   - any other architecture's system calls (i386 or x32 on amd64) kill the process.

// seccompData offsets (struct seccomp_data): the system call number, the architecture, and
// the low 32 bits of each argument on little-endian machines, which is all the kernel reads
// of the arguments checked here (socket's int domain, the flags clone keeps).
const (
	offNr   = 0
	offArch = 4
)

func offArg(i uint32) uint32 { return 16 + 8*i }

// cloneNamespaces are the namespace flags clone refuses.
const cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// filter is a classic BPF program under construction.
type filter []unix.SockFilter

func (f *filter) stmt(code uint16, k uint32) { *f = append(*f, unix.SockFilter{Code: code, K: k}) }

func (f *filter) jump(code uint16, k uint32, jt, jf uint8) {
	*f = append(*f, unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k})
}

func (f *filter) loadNr() { f.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr) }

// deny returns errno for the system call nr.
func (f *filter) deny(nr uintptr, errno unix.Errno) {
	f.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, uint32(nr), 0, 1)
	f.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(errno))
}

// denyArg returns errno for the system call nr when the instructions of test, which see
// the low 32 bits of argument arg and fall through to the refusal, do; test's jumps past
// the refusal lead to the number being loaded again for the next rule.
func (f *filter) denyArg(nr uintptr, arg uint32, errno unix.Errno, test []unix.SockFilter) {
	f.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, uint32(nr), 0, uint8(len(test)+2))
	f.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg(arg))
	*f = append(*f, test...)
	f.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(errno))
	f.loadNr()
}

// seccompFilter is the program for a run; singleProcess refuses new processes.
func seccompFilter(singleProcess bool) []unix.SockFilter {
	var f filter
	f.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch)
	f.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, auditArch, 1, 0)
	f.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_KILL_PROCESS)
	f.loadNr()
	if foreignSyscalls != 0 {
		f.jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, foreignSyscalls, 0, 1)
		f.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_KILL_PROCESS)
	}
	f.denyArg(unix.SYS_SOCKET, 0, unix.EACCES, []unix.SockFilter{
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.AF_UNIX, Jt: 0, Jf: 1},
	})
	clone := []unix.SockFilter{{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: cloneNamespaces, Jt: 0, Jf: 1}}
	if singleProcess {
		// A namespace flag jumps to the refusal; then a clone that is not a thread falls
		// through to it too.
		clone = []unix.SockFilter{
			{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: cloneNamespaces, Jt: 1, Jf: 0},
			{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: unix.CLONE_THREAD, Jt: 1, Jf: 0},
		}
		for _, nr := range forkSyscalls {
			f.deny(nr, unix.EPERM)
		}
	}
	f.denyArg(unix.SYS_CLONE, 0, unix.EPERM, clone)
	f.deny(unix.SYS_CLONE3, unix.ENOSYS)
	for _, nr := range []uintptr{
		unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
		unix.SYS_UNSHARE, unix.SYS_SETNS, unix.SYS_MEMFD_CREATE, unix.SYS_MEMFD_SECRET,
		unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_MSGGET,
		unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
	} {
		f.deny(nr, unix.EPERM)
	}
	f.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW)
	return f
}

// installSeccomp installs prog on the calling thread; no_new_privs must be set.
func installSeccomp(prog []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return e
	}
	return nil
}
