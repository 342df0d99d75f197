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

package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/plugin/exec"
	"stencil.dev/stencil/pkg/transform/plugin/starlark"
)

// PluginOptions are the administrator's choice of which plugins run. The defaults run none.
type PluginOptions struct {
	// EnableStarlark runs Starlark transformers in every namespace.
	EnableStarlark bool
	// StarlarkNamespaces run Starlark transformers in these namespaces only.
	StarlarkNamespaces []string
	// StarlarkSteps, StarlarkTimeout and StarlarkMemoryBytes bound one Starlark run.
	StarlarkSteps       int
	StarlarkTimeout     time.Duration
	StarlarkMemoryBytes int

	// Dir is the plugin directory; empty runs no exec plugin.
	Dir string
	// ImagesFile maps KRM function images to executables in Dir (YAML: image: path).
	ImagesFile string
	// Env is the plugins' whole environment, NAME=VALUE.
	Env []string
	// ReadPaths are more paths plugins may read and execute.
	ReadPaths []string
	// Timeout, MaxOutputBytes, MaxOutputObjects, MemoryBytes, DiskBytes, OpenFiles and
	// Processes bound each run.
	Timeout                                                                        time.Duration
	MaxOutputBytes, MaxOutputObjects, MemoryBytes, DiskBytes, OpenFiles, Processes int
}

// NewPluginOptions returns the defaults: no plugin runs.
func NewPluginOptions() *PluginOptions {
	return &PluginOptions{
		StarlarkSteps: starlark.DefaultSteps, StarlarkTimeout: starlark.DefaultTimeout,
		StarlarkMemoryBytes: starlark.DefaultMemoryBytes,
		Timeout:             exec.DefaultTimeout, MaxOutputBytes: exec.DefaultOutputBytes,
		MaxOutputObjects: exec.DefaultOutputObjects, MemoryBytes: exec.DefaultMemoryBytes,
		DiskBytes: exec.DefaultDiskBytes, OpenFiles: exec.DefaultOpenFiles,
		Processes: exec.DefaultProcesses,
	}
}

// AddFlags adds the plugin flags to fs.
func (o *PluginOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.EnableStarlark, "enable-starlark", o.EnableStarlark,
		"Run Starlark transformers (provider: {starlark: {source: ...}}) in every namespace. Off by default: a template that uses one is refused.")
	fs.StringSliceVar(&o.StarlarkNamespaces, "starlark-namespaces", o.StarlarkNamespaces,
		"Run Starlark transformers in these namespaces only (without --enable-starlark).")
	fs.IntVar(&o.StarlarkSteps, "starlark-max-steps", o.StarlarkSteps, "Bytecode steps one Starlark transformer run may take.")
	fs.DurationVar(&o.StarlarkTimeout, "starlark-timeout", o.StarlarkTimeout, "Wall-clock time one Starlark transformer run may take.")
	fs.IntVar(&o.StarlarkMemoryBytes, "starlark-max-memory-bytes", o.StarlarkMemoryBytes,
		"Bytes one Starlark transformer run's operators and built-ins may create, all together.")
	fs.StringVar(&o.Dir, "plugin-dir", o.Dir,
		"Directory of the exec plugins the administrator installed (seed 000's DIR/<API group>, KRM functions by provider.exec.path). Empty, the default: no plugin ever runs.")
	fs.StringVar(&o.ImagesFile, "plugin-images", o.ImagesFile,
		"YAML file mapping KRM function images (provider.container.image) to executables in --plugin-dir; an image not listed is refused, never pulled.")
	fs.StringSliceVar(&o.Env, "plugin-env", o.Env, "NAME=VALUE pairs that make up the plugins' whole environment (empty by default).")
	fs.StringSliceVar(&o.ReadPaths, "plugin-read-paths", o.ReadPaths,
		"More paths plugins may read and execute besides --plugin-dir and their working directory (an interpreter's directories), where Landlock confines them.")
	fs.DurationVar(&o.Timeout, "plugin-timeout", o.Timeout, "Wall-clock time one plugin run may take; then its processes are killed.")
	fs.IntVar(&o.MaxOutputBytes, "plugin-max-output-bytes", o.MaxOutputBytes,
		"Bytes one plugin run may write to stdout, and to stderr; past it the run is killed and fails. Output that is not JSON may take a quarter of it.")
	fs.IntVar(&o.MaxOutputObjects, "plugin-max-output-objects", o.MaxOutputObjects,
		"Objects one plugin run may write (documents, or the items of a ResourceList), counted before any is decoded.")
	fs.IntVar(&o.MemoryBytes, "plugin-max-memory-bytes", o.MemoryBytes,
		"Address space of one plugin run, all its processes together (RLIMIT_AS of its one process, or divided among --plugin-max-processes).")
	fs.IntVar(&o.MemoryBytes, "plugin-max-address-space-bytes", o.MemoryBytes, "Former name of --plugin-max-memory-bytes.")
	_ = fs.MarkDeprecated("plugin-max-address-space-bytes", "use --plugin-max-memory-bytes, which bounds all of a run's processes together")
	fs.IntVar(&o.DiskBytes, "plugin-max-disk-bytes", o.DiskBytes,
		"Bytes one plugin run may write into its working directory, a tmpfs of this size where user namespaces are allowed (where not, the directory is read-only); also RLIMIT_FSIZE.")
	fs.IntVar(&o.OpenFiles, "plugin-max-open-files", o.OpenFiles, "RLIMIT_NOFILE of plugin runs.")
	fs.IntVar(&o.Processes, "plugin-max-processes", o.Processes,
		"Processes one plugin run may have at once. 1, the default: it may not start any. More: threads count as processes (RLIMIT_NPROC in the run's own user namespace, which it then needs), and each gets --plugin-max-memory-bytes divided by this.")
}

// Validate reports invalid values.
func (o *PluginOptions) Validate() []error {
	var errs []error
	for _, f := range []struct {
		name  string
		value int64
	}{
		{"starlark-max-steps", int64(o.StarlarkSteps)}, {"starlark-timeout", int64(o.StarlarkTimeout)},
		{"starlark-max-memory-bytes", int64(o.StarlarkMemoryBytes)}, {"plugin-timeout", int64(o.Timeout)},
		{"plugin-max-output-bytes", int64(o.MaxOutputBytes)}, {"plugin-max-output-objects", int64(o.MaxOutputObjects)},
		{"plugin-max-memory-bytes", int64(o.MemoryBytes)}, {"plugin-max-disk-bytes", int64(o.DiskBytes)},
		{"plugin-max-open-files", int64(o.OpenFiles)}, {"plugin-max-processes", int64(o.Processes)},
	} {
		if f.value <= 0 {
			errs = append(errs, fmt.Errorf("--%s must be positive", f.name))
		}
	}
	if o.Dir == "" && o.ImagesFile != "" {
		errs = append(errs, fmt.Errorf("--plugin-images needs --plugin-dir"))
	}
	if o.Dir != "" {
		if st, err := os.Stat(o.Dir); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Errorf("--plugin-dir %q is not a directory", o.Dir))
		}
	}
	for _, kv := range o.Env {
		if name, _, ok := strings.Cut(kv, "="); !ok || name == "" {
			errs = append(errs, fmt.Errorf("--plugin-env %q is not NAME=VALUE", kv))
		}
	}
	return errs
}

// Limits adds the Starlark bounds to the processing limits.
func (o *PluginOptions) Limits(l transform.Limits) transform.Limits {
	l.StarlarkSteps, l.StarlarkTimeout, l.StarlarkMemoryBytes = o.StarlarkSteps, o.StarlarkTimeout, o.StarlarkMemoryBytes
	return l
}

// Policy returns which plugins run in a namespace.
func (o *PluginOptions) Policy() (plugin.PolicyFunc, error) {
	var policy *exec.Policy
	if o.Dir != "" {
		dir, err := filepath.Abs(o.Dir)
		if err != nil {
			return nil, err
		}
		images := map[string]string{}
		if o.ImagesFile != "" {
			b, err := os.ReadFile(o.ImagesFile)
			if err != nil {
				return nil, fmt.Errorf("--plugin-images: %w", err)
			}
			if err := yaml.UnmarshalStrict(b, &images); err != nil {
				return nil, fmt.Errorf("--plugin-images: a map of image to executable: %w", err)
			}
		}
		policy = &exec.Policy{Dir: dir, Images: images, Env: o.Env, ReadPaths: o.ReadPaths, Timeout: o.Timeout,
			MaxOutputBytes: o.MaxOutputBytes, MaxOutputObjects: o.MaxOutputObjects, MemoryBytes: o.MemoryBytes, DiskBytes: o.DiskBytes,
			OpenFiles: o.OpenFiles, Processes: o.Processes}
	}
	namespaces := map[string]bool{}
	for _, ns := range o.StarlarkNamespaces {
		namespaces[ns] = true
	}
	return func(namespace string) plugin.Policy {
		return plugin.Policy{Starlark: o.EnableStarlark || namespaces[namespace], Exec: policy}
	}, nil
}
