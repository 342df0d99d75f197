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
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// helperEnv makes this test binary, run confined by the tests below, try one thing and say
// what came of it instead of running the tests.
const helperEnv = "STENCIL_SANDBOX_TEST_HELPER"

func helperResult(err error) string {
	if err != nil {
		return err.Error()
	}
	return "ok"
}

// attempt does what mode names.
func attempt(mode string) error {
	switch mode {
	case "create":
		return os.WriteFile("created", []byte("x"), 0o600)
	case "big file":
		f, err := os.Create("big")
		if err != nil {
			return err
		}
		defer f.Close()
		signal.Ignore(unix.SIGXFSZ) // to see EFBIG rather than die of it
		_, err = f.Write(make([]byte, 2<<20))
		return err
	case "unix socket":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "socketpair":
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return err
	case "shared memory":
		b, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
		if err == nil {
			unix.Munmap(b)
		}
		return err
	case "private memory":
		b, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err == nil {
			unix.Munmap(b)
		}
		return err
	case "memfd":
		fd, err := unix.MemfdCreate("x", 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "io_uring":
		params := make([]byte, 120)
		_, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 {
			return e
		}
		return nil
	case "unshare":
		runtime.LockOSThread() // the thread is left in its namespace, if it gets one
		return unix.Unshare(unix.CLONE_NEWUSER)
	case "clone3":
		_, _, e := unix.RawSyscall(unix.SYS_CLONE3, 0, 0, 0)
		return e
	case "process":
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stderr, os.Stderr
		return cmd.Run()
	case "threads":
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread() // a thread of its own, which exits with it
			}()
		}
		wg.Wait()
		return nil
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// TestMain lets this test binary be the shim of the runs its tests start (unless told not to,
// by TestNoShimWithoutTheCall), then removes the copy of the test binary they ran confined.
func TestMain(m *testing.M) {
	if os.Getenv(skipShimEnv) == "" {
		RunShimIfRequested()
	}
	// Run confined by the tests below, this binary is the plugin: it tries one thing, prints
	// "result: ok" or the error it got, and runs no test.
	if mode := os.Getenv(helperEnv); mode != "" {
		fmt.Printf("result: %s\n", helperResult(attempt(mode)))
		os.Exit(0)
	}
	code := m.Run()
	if helperBin != "" {
		os.RemoveAll(filepath.Dir(helperBin))
	}
	os.Exit(code)
}

var (
	helperOnce sync.Once
	helperBin  string
	helperErr  error
)

// helperBinary is a copy of this test binary where every user may read and execute it (the
// confined program runs as nobody when the tests run as root).
func helperBinary(t *testing.T) string {
	t.Helper()
	helperOnce.Do(func() {
		dir, err := os.MkdirTemp("", "stencil-sandbox-test-")
		if err != nil {
			helperErr = err
			return
		}
		_ = os.Chmod(dir, 0o755)
		self, err := os.Open("/proc/self/exe")
		if err != nil {
			helperErr = err
			return
		}
		defer self.Close()
		helperBin = filepath.Join(dir, "helper")
		out, err := os.OpenFile(helperBin, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			helperErr = err
			return
		}
		if _, err := io.Copy(out, self); err != nil {
			helperErr = err
		}
		if err := out.Close(); err != nil && helperErr == nil {
			helperErr = err
		}
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	return helperBin
}

// runConfined runs the helper confined by spec (Path, Args, Env and ReadOnly filled in) with
// the layers f, and returns what it got.
func runConfined(t *testing.T, spec Spec, f Features, mode string) string {
	t.Helper()
	bin := helperBinary(t)
	work, err := os.MkdirTemp("", "stencil-sandbox-work-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	spec.Path, spec.Env = bin, []string{helperEnv + "=" + mode}
	spec.Dir, spec.ReadOnly = work, []string{filepath.Dir(bin)}
	// Under -race the test binary is linked dynamically, against the C library.
	for _, lib := range []string{"/lib", "/lib64", "/usr/lib", "/usr/lib64"} {
		if _, err := os.Stat(lib); err == nil {
			spec.ReadOnly = append(spec.ReadOnly, lib)
		}
	}
	cmd, err := command(spec, f)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	Kill(cmd)
	result, ok := strings.CutPrefix(strings.TrimSpace(stdout.String()), "result: ")
	if !ok {
		t.Fatalf("%s: the helper said %q (%v), stderr %q", mode, stdout.String(), err, stderr.String())
	}
	return result
}

// TestSeccompFilter: what the filter refuses and what it leaves, in a run of one process and
// in a run of several.
func TestSeccompFilter(t *testing.T) {
	f := Probe()
	if !f.Seccomp {
		t.Fatalf("no seccomp on this kernel (%s): exec plugins cannot run here", f)
	}
	for _, tc := range []struct {
		mode      string
		processes uint64
		want      string
	}{
		{"unix socket", 1, "permission denied"},
		{"socketpair", 1, "ok"},
		{"shared memory", 1, "ok"}, // counted by RLIMIT_AS in every process that maps it
		{"private memory", 1, "ok"},
		{"memfd", 1, "operation not permitted"},
		{"io_uring", 1, "operation not permitted"},
		{"unshare", 1, "operation not permitted"},
		{"clone3", 1, "function not implemented"},
		{"threads", 1, "ok"},
		{"process", 1, "operation not permitted"},
		{"process", 64, "ok"},
		{"unix socket", 64, "permission denied"},
	} {
		if tc.processes > 1 && !f.Namespaces {
			// Runs of several processes need user namespaces; without them they are refused,
			// which TestSeveralProcessesNeedNamespaces checks.
			continue
		}
		t.Run(fmt.Sprintf("%s, %d processes", tc.mode, tc.processes), func(t *testing.T) {
			if got := runConfined(t, Spec{Processes: tc.processes}, f, tc.mode); !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFilterJumps: every jump of both programs lands inside them, and they end by allowing.
func TestFilterJumps(t *testing.T) {
	for _, single := range []bool{true, false} {
		prog := seccompFilter(single)
		for i, in := range prog {
			if in.Code&0x07 == unix.BPF_JMP && (i+1+int(in.Jt) >= len(prog) || i+1+int(in.Jf) >= len(prog)) {
				t.Errorf("single process %t: instruction %d jumps out of the program", single, i)
			}
		}
		if last := prog[len(prog)-1]; last.Code != unix.BPF_RET|unix.BPF_K || last.K != unix.SECCOMP_RET_ALLOW {
			t.Errorf("single process %t: the program ends with %+v", single, last)
		}
	}
}

// TestWorkDirBounds: with a mount namespace the working directory is a tmpfs of the disk
// budget; without one nothing can bound its files together, so it is read-only where
// Landlock (or the plugin's user) can make it so, and otherwise only each file is bounded
// (RLIMIT_FSIZE): the weaker bound the documentation states.
func TestWorkDirBounds(t *testing.T) {
	f := Probe()
	spec := Spec{DiskBytes: 1 << 20}
	if f.Namespaces {
		if got := runConfined(t, spec, f, "create"); got != "ok" {
			t.Errorf("creating a file in the tmpfs: %s", got)
		}
		if got := runConfined(t, spec, f, "big file"); !strings.Contains(got, "file too large") {
			t.Errorf("writing 2 MiB with a budget of 1 MiB: %s", got)
		}
	}
	without := f
	without.Namespaces = false
	got := runConfined(t, spec, without, "create")
	switch {
	case f.LandlockABI > 0 || RunsAsNobody():
		if !strings.Contains(got, "permission denied") {
			t.Errorf("without a mount namespace, creating a file: %s, want permission denied", got)
		}
	default:
		t.Logf("without Landlock, a mount namespace or root, the working directory is the plugin's: only each file is bounded")
		if got := runConfined(t, spec, without, "big file"); !strings.Contains(got, "file too large") {
			t.Errorf("writing 2 MiB with a budget of 1 MiB: %s", got)
		}
	}
}

// TestRefusedRuns: a run whose bounds the kernel cannot keep is refused, saying why.
func TestRefusedRuns(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		spec Spec
		f    Features
		want string
	}{
		{"no seccomp", Spec{Dir: dir}, Features{Namespaces: true, LandlockABI: 7}, "need the server's seccomp filter"},
		{"several processes without user namespaces", Spec{Dir: dir, Processes: 2}, Features{LandlockABI: 7, Seccomp: true},
			"runs of 2 processes need user namespaces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := command(tc.spec, tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
