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

package starlark

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxStarlarkFileBytes bounds a script read from a file, as a stored template bounds one
// given inline.
const maxStarlarkFileBytes = 1 << 20

// readLocalScript reads provider.starlark.path in stencil process --local: a template a user
// processes on their machine may come from anyone, so it reads only files beside it, as exec
// plugins run only from the plugin directory. The path is relative to the template's
// directory and stays inside it: no .., no absolute path, no symbolic link out of it, and
// only a regular file (a FIFO or a device would block or never end).
func (o Options) readLocalScript(rel string) ([]byte, error) {
	if o.LocalDir == "" {
		return nil, errors.New("the template was not read from a file, so there is no directory to read the script from: give it inline as source")
	}
	if filepath.IsAbs(rel) || strings.Contains(rel, "\\") {
		return nil, errors.New("must be a path relative to the template's directory")
	}
	clean := filepath.Clean(rel)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return nil, errors.New("must stay inside the template's directory")
	}
	dir, err := filepath.EvalSymlinks(o.LocalDir)
	if err != nil {
		return nil, fmt.Errorf("the template's directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, clean))
	if err != nil {
		return nil, errors.New("no such file in the template's directory")
	}
	if !strings.HasPrefix(real, dir+string(filepath.Separator)) {
		return nil, errors.New("must stay inside the template's directory (a symbolic link leads out of it)")
	}
	// Stat before opening: opening a FIFO waits for a writer.
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("is not a regular file")
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, errors.New("cannot be read")
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, maxStarlarkFileBytes+1))
	if err != nil {
		return nil, errors.New("cannot be read")
	}
	if len(b) > maxStarlarkFileBytes {
		return nil, fmt.Errorf("is larger than %d bytes", maxStarlarkFileBytes)
	}
	return b, nil
}
