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

package kustomize

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
)

// Build workers. Kustomize takes no context: a build started in the server's process runs to
// its end, holding a core and its memory, whether or not its request still waits (one went on
// 65 s after its request's 504 under load). So the server runs each build in a worker: this
// executable started again, which reads builds from its stdin and writes their objects to its
// stdout, one at a time. When the request ends first, the worker is killed (its process group,
// SIGKILL), and another is started for the next build. A worker is kept for the next build
// otherwise, so that a build costs no process start; it gives its memory back to the system
// after each build.
//
// A worker is only ever started by a binary whose main calls ServeWorkerIfRequested first
// thing (stencil-apiserver does, and the test binaries that start workers, from TestMain):
// nothing of the binary's own runs in a worker.

// workerEnv marks a process started as a build worker.
const workerEnv = "STENCIL_KUSTOMIZE_WORKER"

// maxFrameBytes bounds one frame between the server and a worker: the objects of a build are
// at most a request's output, and its input at most --max-kustomize-bytes.
const maxFrameBytes = 1 << 30

// workersEnabled says this executable's main calls ServeWorkerIfRequested.
var workersEnabled atomic.Bool

// workerStartedHook, when set (by tests), hears the process id of each worker started.
var workerStartedHook func(pid int)

// ServeWorkerIfRequested makes this process a build worker when Workers started it: it serves
// builds until its stdin closes, then exits. In any other process it returns at once, and
// lets NewWorkers start this executable again as workers.
func ServeWorkerIfRequested() {
	if os.Getenv(workerEnv) == "" {
		workersEnabled.Store(true)
		return
	}
	warmKustomize()
	in, out := bufio.NewReader(os.Stdin), bufio.NewWriter(os.Stdout)
	for {
		var job buildJob
		if err := job.read(in); err != nil {
			if errors.Is(err, io.EOF) {
				os.Exit(0)
			}
			fmt.Fprintln(os.Stderr, "kustomize worker:", err)
			os.Exit(2)
		}
		objects, err := buildInProcess(job.kustomization, job.objects, job.sortOptions)
		if err := writeResult(out, objects, err); err != nil {
			fmt.Fprintln(os.Stderr, "kustomize worker:", err)
			os.Exit(2)
		}
		job = buildJob{}
		objects = nil
		debug.FreeOSMemory()
	}
}

// Workers runs builds in worker processes (transform.Builder).
type Workers struct {
	executable string

	mu   sync.Mutex
	idle []*worker
}

// NewWorkers returns the build workers of this executable, none started yet; an error when its
// main does not serve them (ServeWorkerIfRequested).
func NewWorkers() (*Workers, error) {
	if !workersEnabled.Load() {
		return nil, errors.New("this program cannot run Kustomize builds apart: its main does not call kustomize.ServeWorkerIfRequested")
	}
	executable, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start build workers: %w", err)
	}
	return &Workers{executable: executable}, nil
}

// Build runs one build in an idle worker, or a new one, and kills the worker when ctx ends
// first. An idle worker that turns out dead when given the build (killed from outside between
// builds: the pool had not seen it exit yet) is replaced once by a new one.
func (p *Workers) Build(ctx context.Context, kustomization, objects []byte, sortOptions bool) ([]transform.Object, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w, reused, err := p.get()
		if err != nil {
			return nil, err
		}
		got, err, broken := p.buildIn(ctx, w, buildJob{kustomization: kustomization, objects: objects, sortOptions: sortOptions})
		if broken && reused && ctx.Err() == nil {
			continue
		}
		return got, err
	}
}

// buildIn runs job in w; broken says w failed (and was killed), not the build.
func (p *Workers) buildIn(ctx context.Context, w *worker, job buildJob) ([]transform.Object, error, bool) {
	type result struct {
		objects []transform.Object
		err     error
		// broken says the worker cannot serve another build.
		broken bool
	}
	done := make(chan result, 1)
	go func() {
		objects, buildErr, err := w.build(job)
		if err != nil {
			done <- result{err: w.exitError(err), broken: true}
			return
		}
		done <- result{objects: objects, err: buildErr}
	}()
	select {
	case r := <-done:
		if r.broken {
			w.kill()
		} else {
			p.put(w)
		}
		return r.objects, r.err, r.broken
	case <-ctx.Done():
		w.kill()
		<-done
		return nil, ctx.Err(), true
	}
}

// Close stops the idle workers.
func (p *Workers) Close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, w := range idle {
		w.kill()
	}
}

// get returns an idle worker (reused) or a new one.
func (p *Workers) get() (w *worker, reused bool, err error) {
	p.mu.Lock()
	for n := len(p.idle); n > 0; n = len(p.idle) {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		select {
		case <-w.exited:
			// It died idle (killed from outside): another is started.
			continue
		default:
		}
		p.mu.Unlock()
		return w, true, nil
	}
	p.mu.Unlock()
	w, err = startWorker(p.executable)
	return w, false, err
}

func (p *Workers) put(w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle = append(p.idle, w)
}

// worker is one worker process.
type worker struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tail
	exited chan struct{}
}

func startWorker(executable string) (*worker, error) {
	cmd := exec.Command(executable)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	// Its own process group, killed whole; and killed with the server, should it die first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w := &worker{cmd: cmd, in: in, out: bufio.NewReader(out), stderr: &tail{max: 4 << 10}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting a Kustomize build worker: %w", err)
	}
	go func() {
		_ = cmd.Wait()
		close(w.exited)
	}()
	if workerStartedHook != nil {
		workerStartedHook(cmd.Process.Pid)
	}
	return w, nil
}

// build sends job and reads its result: the objects, or the build's error; err is the
// worker's failure.
func (w *worker) build(job buildJob) (objects []transform.Object, buildErr, err error) {
	if err := job.write(w.in); err != nil {
		return nil, nil, err
	}
	return readResult(w.out)
}

// kill ends the worker's process group and waits for it.
func (w *worker) kill() {
	_ = w.in.Close()
	if w.cmd.Process != nil {
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-w.exited
}

// exitError words a worker's failure with what it wrote on stderr.
func (w *worker) exitError(err error) error {
	w.kill()
	if msg := w.stderr.String(); msg != "" {
		return fmt.Errorf("kustomize failed: the build's worker ended (%s): %v", w.cmd.ProcessState, msg)
	}
	return fmt.Errorf("kustomize failed: the build's worker ended (%s): %v", w.cmd.ProcessState, err)
}

// buildJob is what one build reads.
type buildJob struct {
	kustomization, objects []byte
	sortOptions            bool
}

func (j *buildJob) write(w io.Writer) error {
	flag := byte(0)
	if j.sortOptions {
		flag = 1
	}
	if err := writeFrame(w, []byte{flag}, j.kustomization, j.objects); err != nil {
		return err
	}
	if f, ok := w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

func (j *buildJob) read(r io.Reader) error {
	parts, err := readFrame(r)
	if err != nil {
		return err
	}
	if len(parts) != 3 || len(parts[0]) != 1 {
		return fmt.Errorf("a build job of %d parts", len(parts))
	}
	j.sortOptions, j.kustomization, j.objects = parts[0][0] == 1, parts[1], parts[2]
	return nil
}

// writeResult writes a build's objects, or its error, as one frame: a first part of "ok" or
// "error", then the objects' JSON or the error's text.
func writeResult(w *bufio.Writer, objects []transform.Object, buildErr error) error {
	parts := [][]byte{[]byte("ok")}
	if buildErr != nil {
		parts = [][]byte{[]byte("error"), []byte(buildErr.Error())}
	} else {
		for _, obj := range objects {
			encoded, err := jsonbytes.AppendValue(nil, obj)
			if err != nil {
				parts = [][]byte{[]byte("error"), []byte(err.Error())}
				break
			}
			parts = append(parts, encoded)
		}
	}
	if err := writeFrame(w, parts...); err != nil {
		return err
	}
	return w.Flush()
}

func readResult(r io.Reader) ([]transform.Object, error, error) {
	parts, err := readFrame(r)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(parts) == 2 && string(parts[0]) == "error":
		return nil, errors.New(string(parts[1])), nil
	case len(parts) == 0 || string(parts[0]) != "ok":
		return nil, nil, errors.New("a result the worker should not write")
	}
	raws := make([]json.RawMessage, len(parts)-1)
	for i := range raws {
		raws[i] = parts[i+1]
	}
	objects, err := jsonbytes.DecodeObjects(raws)
	if err != nil {
		return nil, fmt.Errorf("kustomize output: %w", err), nil
	}
	return objects, nil, nil
}

// writeFrame writes parts as a count, then each part's length and bytes.
func writeFrame(w io.Writer, parts ...[]byte) error {
	header := binary.AppendUvarint(nil, uint64(len(parts)))
	for _, p := range parts {
		header = binary.AppendUvarint(header, uint64(len(p)))
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// readFrame reads what writeFrame wrote, at most maxFrameBytes.
func readFrame(r io.Reader) ([][]byte, error) {
	br, ok := r.(io.ByteReader)
	if !ok {
		br = bufio.NewReader(r)
		r = br.(io.Reader)
	}
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, err
	}
	if n > 1<<20 {
		return nil, fmt.Errorf("a frame of %d parts", n)
	}
	sizes := make([]uint64, n)
	total := uint64(0)
	for i := range sizes {
		if sizes[i], err = binary.ReadUvarint(br); err != nil {
			return nil, unexpected(err)
		}
		if total += sizes[i]; total > maxFrameBytes {
			return nil, fmt.Errorf("a frame of more than %d bytes", maxFrameBytes)
		}
	}
	parts := make([][]byte, n)
	for i, size := range sizes {
		parts[i] = make([]byte, size)
		if _, err := io.ReadFull(r, parts[i]); err != nil {
			return nil, unexpected(err)
		}
	}
	return parts, nil
}

// unexpected makes the end of a stream inside a frame an error of its own.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
