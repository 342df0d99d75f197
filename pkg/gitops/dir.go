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

package gitops

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// MaxFileBytes bounds each file a render reads: 64 MiB, the most JSON one processing may
// make, as stencil process bounds the files it reads.
const MaxFileBytes = 64 << 20

// Dir is the application's directory, the render file's: every file a render reads is opened
// through it, so that no path (.., a symbolic link, a hard-coded absolute path) reads a file
// outside it (os.Root refuses every path that resolves outside).
type Dir struct {
	root *os.Root
	// Path is the directory, as given.
	Path string
	// read names the files read, in order: what a render looked at, for tests.
	read []string
}

// OpenDir opens the application's directory.
func OpenDir(path string) (*Dir, error) {
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Dir{root: root, Path: path}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return d.root.Close() }

// ReadFile reads the regular file at name, a path relative to the directory that must stay
// inside it, of at most limit bytes.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	// Stat first: opening a FIFO for reading would wait for a writer.
	info, err := d.root.Stat(name)
	if err != nil {
		return nil, explainOpen(name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", name, info.Mode().Type())
	}
	f, err := d.root.Open(name)
	if err != nil {
		return nil, explainOpen(name, err)
	}
	defer f.Close()
	d.read = append(d.read, name)
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d MiB: not read", name, limit>>20)
	}
	return data, nil
}

// explainOpen words the error of opening name for the author of the render file.
func explainOpen(name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist in the render file's directory", name)
	case strings.Contains(err.Error(), "path escapes from parent"):
		// os.Root's answer for a symbolic link (or ..) that resolves outside the root.
		return fmt.Errorf("%s leads out of the render file's directory (through a symbolic link): refused", name)
	}
	return err
}
