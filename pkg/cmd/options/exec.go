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

package options

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/plugin/exec"
)

// ExecPluginOptions are the administrator's exec plugins: where they are installed, what they
// see, and the bounds of each run. Without a directory none runs, the default.
type ExecPluginOptions struct {
	// Dir is the plugin directory; empty runs no exec plugin.
	Dir string
	// ImagesFile maps KRM function images to executables in Dir (YAML: image: path).
	ImagesFile string
	// Env is the plugins' whole environment, NAME=VALUE.
	Env []string
	// ReadPaths are more paths plugins may read and execute.
	ReadPaths []string
	// Limits bound each run.
	exec.Limits
}

// NewExecPluginOptions returns the defaults: no plugin runs, and a run would be bounded by
// exec.DefaultLimits.
func NewExecPluginOptions() *ExecPluginOptions {
	return &ExecPluginOptions{Limits: exec.DefaultLimits()}
}

// AddFlags adds the exec plugin flags to fs.
func (o *ExecPluginOptions) AddFlags(fs *pflag.FlagSet) {
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

// Validate reports every invalid value: a bound that is not positive or is past a thousand
// times its default, a plugin directory that is not one, an environment entry without a name.
func (o *ExecPluginOptions) Validate() []error {
	d := exec.DefaultLimits()
	errs := checkLimits(
		duration("plugin-timeout", o.Timeout, d.Timeout),
		count("plugin-max-output-bytes", o.MaxOutputBytes, d.MaxOutputBytes),
		count("plugin-max-output-objects", o.MaxOutputObjects, d.MaxOutputObjects),
		count("plugin-max-memory-bytes", o.MemoryBytes, d.MemoryBytes),
		count("plugin-max-disk-bytes", o.DiskBytes, d.DiskBytes),
		count("plugin-max-open-files", o.OpenFiles, d.OpenFiles),
		count("plugin-max-processes", o.Processes, d.Processes),
	)
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

// Policy returns how exec plugins run: nil, none, without a directory. It reads the images
// file.
func (o *ExecPluginOptions) Policy() (*exec.Policy, error) {
	if o.Dir == "" {
		return nil, nil
	}
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
	return &exec.Policy{Dir: dir, Images: images, Env: o.Env, ReadPaths: o.ReadPaths, Limits: o.Limits}, nil
}

// PluginPolicy returns which plugins run in a namespace: Starlark where starlark allows it,
// exec plugins, where execPlugins has a directory, everywhere.
func PluginPolicy(starlark *StarlarkOptions, execPlugins *ExecPluginOptions) (plugin.PolicyFunc, error) {
	policy, err := execPlugins.Policy()
	if err != nil {
		return nil, err
	}
	allowed := starlark.allowed()
	return func(namespace string) plugin.Policy {
		return plugin.Policy{Starlark: allowed(namespace), Exec: policy}
	}, nil
}
