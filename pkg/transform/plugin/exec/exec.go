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

package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"stencil.dev/stencil/pkg/sandbox"
	"stencil.dev/stencil/pkg/transform"
)

// Exec plugins are executables the administrator installed in one directory. Nothing else
// runs: a path is resolved inside the directory only, an image only through the
// administrator's mapping, and each run is confined by pkg/sandbox.

// The default bounds of one plugin run, each with why it is what it is. DefaultLimits gathers
// them and is the only reader: the server's flags and every run start from it.
const (
	defaultTimeout = 10 * time.Second
	// defaultOutputBytes bounds stdout (and stderr): the objects decoded from it take
	// six to sixteen times its size in the server's heap.
	defaultOutputBytes = 16 << 20
	// defaultOutputObjects bounds the objects one run may give back, counted before
	// any is decoded.
	defaultOutputObjects = 10000
	// defaultMemoryBytes bounds the address space of a run's processes together. A Go
	// program reserves about 750 MB of address space however little it uses, so less would
	// keep Go plugins from starting.
	defaultMemoryBytes = 1 << 30
	// defaultDiskBytes bounds what a run writes into its working directory, which
	// lives in memory (a tmpfs) where the kernel allows one.
	defaultDiskBytes = 64 << 20
	defaultOpenFiles = 256
	// defaultProcesses is one: a plugin may not start processes, which is what lets
	// RLIMIT_AS bound its memory whole.
	defaultProcesses = 1
)

const (
	maxPluginStderrInError      = 4 << 10
	pluginWorkDirPrefix         = "stencil-plugin-"
	pluginWaitAfterKill         = 2 * time.Second
	pluginStderrCapWithinOutput = 1 << 20
)

// Policy is how exec plugins run: from where, with what, bounded how.
type Policy struct {
	// Dir is the plugin directory, absolute; nothing outside it runs.
	Dir string
	// Images maps KRM function images to executables relative to Dir; an image not listed
	// is refused, never pulled.
	Images map[string]string
	// Env is the whole environment of every plugin (KEY=VALUE).
	Env []string
	// ReadPaths are more paths plugins may read and execute (an interpreter's directories);
	// Dir and their working directory are always readable.
	ReadPaths []string
	// Limits bound each run; zero fields mean the defaults.
	Limits
}

// Limits bound one plugin run; a zero or negative field means its default (WithDefaults).
type Limits struct {
	// Timeout bounds one run's wall-clock time.
	Timeout time.Duration
	// MaxOutputBytes bounds what one run may write to stdout, and to stderr. Past it the run
	// is killed and fails.
	MaxOutputBytes int
	// MaxOutputObjects bounds the objects one run may write. Documents are counted as they
	// arrive (past the bound the run is killed), the items of a ResourceList before it is
	// decoded.
	MaxOutputObjects int
	// MemoryBytes, DiskBytes, OpenFiles and Processes bound one run (pkg/sandbox's Spec
	// says how).
	MemoryBytes, DiskBytes, OpenFiles, Processes int
}

// DefaultLimits returns the default of every bound: where the server's flags start.
func DefaultLimits() Limits {
	return Limits{Timeout: defaultTimeout, MaxOutputBytes: defaultOutputBytes, MaxOutputObjects: defaultOutputObjects,
		MemoryBytes: defaultMemoryBytes, DiskBytes: defaultDiskBytes, OpenFiles: defaultOpenFiles, Processes: defaultProcesses}
}

// WithDefaults returns l with every field that is not positive set to its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	return Limits{
		Timeout:          transform.OrDefault(l.Timeout, d.Timeout),
		MaxOutputBytes:   transform.OrDefault(l.MaxOutputBytes, d.MaxOutputBytes),
		MaxOutputObjects: transform.OrDefault(l.MaxOutputObjects, d.MaxOutputObjects),
		MemoryBytes:      transform.OrDefault(l.MemoryBytes, d.MemoryBytes),
		DiskBytes:        transform.OrDefault(l.DiskBytes, d.DiskBytes),
		OpenFiles:        transform.OrDefault(l.OpenFiles, d.OpenFiles),
		Processes:        transform.OrDefault(l.Processes, d.Processes),
	}
}

// Errors of plugin runs, named in the 422.
var (
	errPluginTimeout     = errors.New("the plugin passed its time limit")
	errPluginOutput      = errors.New("the plugin's output passed its limit")
	errPluginUnsupported = errors.New("the plugin does not support this operation (exit 127)")
)

// Confinement lists the layers that confine an exec plugin on this kernel, for the policy a
// template's author is told.
func Confinement() string { return sandbox.Probe().String() }

// resolve returns the executable rel names inside the plugin directory, or why it may not
// run: a path that leaves the directory (.., a symbolic link out of it) is refused.
func (e *Policy) resolve(rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.Contains(rel, "\\") {
		return "", fmt.Errorf("must be a path relative to the plugin directory")
	}
	clean := filepath.Clean(rel)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("must stay inside the plugin directory")
	}
	path := filepath.Join(e.Dir, clean)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("no such plugin is installed")
	}
	dir, err := filepath.EvalSymlinks(e.Dir)
	if err != nil || !strings.HasPrefix(real, dir+string(filepath.Separator)) {
		return "", fmt.Errorf("must stay inside the plugin directory")
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("no such executable plugin is installed")
	}
	return real, nil
}

// run runs the executable with args over stdin, confined, and returns its stdout. The
// error says which limit it passed, or carries its stderr with the server's paths and the
// plugin's environment values taken out.
func (e *Policy) run(ctx *transform.Context, exe string, args []string, stdin []byte) ([]byte, error) {
	work, err := os.MkdirTemp("", pluginWorkDirPrefix)
	if err != nil {
		return nil, fmt.Errorf("creating the plugin's working directory: %w", err)
	}
	defer os.RemoveAll(work)
	limits := e.Limits.WithDefaults()
	timeout := limits.Timeout
	cmd, err := sandbox.Command(sandbox.Spec{
		Path: exe, Args: args, Env: append([]string{}, e.Env...), Dir: work,
		ReadOnly:   append([]string{e.Dir}, e.ReadPaths...),
		CPUSeconds: uint64(timeout/time.Second) + 1, OpenFiles: uint64(limits.OpenFiles),
		MemoryBytes: uint64(limits.MemoryBytes), DiskBytes: uint64(limits.DiskBytes), Processes: uint64(limits.Processes),
	})
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if ctx.Request() != nil {
		stop := context.AfterFunc(ctx.Request(), cancel)
		defer stop()
	}
	limit := limits.MaxOutputBytes
	var killOnce sync.Once
	kill := func() { killOnce.Do(func() { sandbox.Kill(cmd) }) }
	stdout := &cappedBuffer{limit: limit, onOverflow: kill, docs: docCounter{limit: limits.MaxOutputObjects}}
	stderr := &cappedBuffer{limit: min(limit, pluginStderrCapWithinOutput), onOverflow: kill}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), stdout, stderr
	cmd.WaitDelay = pluginWaitAfterKill
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the plugin: %w", err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-runCtx.Done():
			kill()
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	// Whatever the plugin started and left behind goes with its group.
	kill()
	switch {
	case stdout.docs.over():
		return nil, fmt.Errorf("%w of %d objects", errPluginOutput, limits.MaxOutputObjects)
	case stdout.overflow || stderr.overflow:
		return nil, fmt.Errorf("%w of %d bytes", errPluginOutput, limit)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case runCtx.Err() != nil:
		return nil, fmt.Errorf("%w of %s", errPluginTimeout, timeout)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if exit.ExitCode() == 127 {
			return nil, errPluginUnsupported
		}
		// As root the plugin runs as nobody, whom a directory of root's (a 0700 home) keeps
		// out; the kernel says only "permission denied", so the error says who and where.
		if exit.ExitCode() == 126 && strings.Contains(stderr.String(), sandbox.ExecDenied) {
			if why := sandbox.NobodyCannotRun(exe); why != "" {
				return nil, fmt.Errorf("the plugin cannot be executed: plugins run as nobody when stencil runs as root, and %s", e.sanitize(why, work))
			}
		}
		return nil, fmt.Errorf("the plugin failed (%s): %s", exitReason(exit), e.sanitize(stderr.String(), work))
	}
	if err != nil {
		return nil, fmt.Errorf("running the plugin: %w", err)
	}
	return stdout.Bytes(), nil
}

func exitReason(exit *exec.ExitError) string {
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by " + ws.Signal().String()
	}
	return fmt.Sprintf("exit %d", exit.ExitCode())
}

// sanitize keeps a plugin's stderr from telling the caller what the server knows: the
// plugin directory, the working directory, and the values of the environment the
// administrator gave the plugin become placeholders, and it is cut short.
func (e *Policy) sanitize(stderr, work string) string {
	replacements := []string{work, "<workdir>", e.Dir, "<plugin-dir>"}
	if real, err := filepath.EvalSymlinks(e.Dir); err == nil && real != e.Dir {
		replacements = append(replacements, real, "<plugin-dir>")
	}
	if real, err := filepath.EvalSymlinks(work); err == nil && real != work {
		replacements = append(replacements, real, "<workdir>")
	}
	for _, kv := range e.Env {
		if _, v, ok := strings.Cut(kv, "="); ok && len(v) >= 4 {
			replacements = append(replacements, v, "<redacted>")
		}
	}
	out := strings.NewReplacer(replacements...).Replace(strings.TrimSpace(stderr))
	if len(out) > maxPluginStderrInError {
		out = out[:maxPluginStderrInError] + "..."
	}
	if out == "" {
		return "no message on stderr"
	}
	return out
}

// cappedBuffer keeps at most limit bytes, and, when docs has a limit, as many YAML documents;
// past either it calls onOverflow (which kills the plugin) and discards the rest, so that the
// plugin is not blocked on a full pipe. It keeps what it is given in pieces of
// outputChunkBytes and joins them once: a buffer that doubles allocates two to four times
// what it holds by the time it holds it.
type cappedBuffer struct {
	chunks     [][]byte
	size       int
	limit      int
	overflow   bool
	onOverflow func()
	docs       docCounter
}

// outputChunkBytes is the piece cappedBuffer keeps output in.
const outputChunkBytes = 1 << 20

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.overflow {
		return len(p), nil
	}
	if b.size+len(p) > b.limit || b.docs.count(p) {
		b.overflow = true
		b.onOverflow()
		return len(p), nil
	}
	b.size += len(p)
	for rest := p; len(rest) > 0; {
		last := len(b.chunks) - 1
		if last < 0 || len(b.chunks[last]) == cap(b.chunks[last]) {
			b.chunks = append(b.chunks, make([]byte, 0, min(outputChunkBytes, b.limit)))
			last++
		}
		n := min(len(rest), cap(b.chunks[last])-len(b.chunks[last]))
		b.chunks[last] = append(b.chunks[last], rest[:n]...)
		rest = rest[n:]
	}
	return len(p), nil
}

// Bytes returns what was kept, in one piece.
func (b *cappedBuffer) Bytes() []byte {
	if len(b.chunks) == 1 {
		return b.chunks[0]
	}
	return bytes.Join(b.chunks, nil)
}

// String returns what was kept.
func (b *cappedBuffer) String() string { return string(b.Bytes()) }
