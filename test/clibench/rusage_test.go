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

package clibench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// measurerSource is a program that runs a command and writes the command's CPU time and peak
// resident set to a file. The peak of a child the benchmark started itself would not be the
// child's: Go starts a child with vfork, the child sharing the parent's memory until it execs,
// and Linux carries the peak of the memory an exec replaces into the new program's rusage, so
// a child of the test binary (tens of MiB) reports the test binary's peak. The measurer is a
// process of a few MiB, so the peak it reads is the command's own.
const measurerSource = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	usage := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	line := fmt.Sprintf("%d %d\n", (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Nanoseconds(), usage.Maxrss*1024)
	if werr := os.WriteFile(os.Args[1], []byte(line), 0o600); werr != nil {
		fmt.Fprintln(os.Stderr, werr)
		os.Exit(2)
	}
	if err != nil {
		os.Exit(1)
	}
}
`

var (
	measurerOnce sync.Once
	measurerPath string
	measurerErr  error
)

// measurer builds the measurer once per test binary, in a module of its own.
func measurer(b *testing.B) string {
	measurerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "clibench-measurer")
		if err != nil {
			measurerErr = err
			return
		}
		for name, content := range map[string]string{"go.mod": "module measurer\n\ngo 1.26\n", "main.go": measurerSource} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
				measurerErr = err
				return
			}
		}
		measurerPath = filepath.Join(dir, "measurer")
		build := exec.Command("go", "build", "-o", measurerPath, ".")
		build.Dir = dir
		build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
		if out, err := build.CombinedOutput(); err != nil {
			measurerErr = fmt.Errorf("building the measurer: %v\n%s", err, out)
		}
	})
	if measurerErr != nil {
		b.Fatal(measurerErr)
	}
	return measurerPath
}

// measure runs args as a child of the measurer, giving its stdout, CPU time (user+system) and
// peak resident set in bytes.
func measure(b *testing.B, args ...string) (string, time.Duration, int64) {
	result := filepath.Join(b.TempDir(), "usage")
	cmd := exec.Command(measurer(b), append([]string{result}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("%v: %v\n%s", args, err, stderr.String())
	}
	data, err := os.ReadFile(result)
	if err != nil {
		b.Fatal(err)
	}
	var cpu, peak int64
	if _, err := fmt.Sscanf(string(data), "%d %d", &cpu, &peak); err != nil {
		b.Fatalf("the measurer wrote %q: %v", data, err)
	}
	return stdout.String(), time.Duration(cpu), peak
}

// measurerFloor is the largest peak the measurer may report for a program that does nothing:
// above it, the peaks it reports would hold its own memory, not the command's.
const measurerFloor = 8 << 20

// checkMeasurer fails unless the measurer reports a small peak for /bin/true, so that a peak
// reported beside a budget is the command's own.
func checkMeasurer(b *testing.B) {
	if _, _, peak := measure(b, "/bin/true"); peak > measurerFloor {
		b.Fatalf("the measurer reports a peak of %d bytes for /bin/true (at most %d): its peaks are not the command's", peak, measurerFloor)
	}
}

// dropCached writes the binary at path to disk and drops its pages from the page cache, so
// that the runs that follow read it as a new machine, a new container or a new image layer
// would: through the kernel's read-ahead. The resident set of a program is mostly the pages of
// its binary it touched, and how many pages a touch maps depends on how the page cache holds
// the file: a binary the linker has just written is held in larger pieces than one read from
// disk, and a run of it reported 8 MiB more.
func dropCached(b *testing.B, path string) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		b.Fatal(err)
	}
}
