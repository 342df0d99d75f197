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
	"time"

	"github.com/spf13/pflag"

	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform"
)

// StarlarkOptions say where Starlark transformers run, none by default, and bound each run.
type StarlarkOptions struct {
	// Enabled runs Starlark transformers in every namespace.
	Enabled bool
	// Namespaces run Starlark transformers in these namespaces only.
	Namespaces []string
	// Steps, Timeout and MemoryBytes bound one run (transform.Limits' Starlark fields).
	Steps       int
	Timeout     time.Duration
	MemoryBytes int
}

// NewStarlarkOptions returns the defaults: Starlark runs nowhere, bounded by
// transform.DefaultLimits.
func NewStarlarkOptions() *StarlarkOptions {
	d := transform.DefaultLimits()
	return &StarlarkOptions{Steps: d.StarlarkSteps, Timeout: d.StarlarkTimeout, MemoryBytes: d.StarlarkMemoryBytes}
}

// AddFlags adds the Starlark flags to fs.
func (o *StarlarkOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Enabled, "enable-starlark", o.Enabled,
		"Run Starlark transformers (provider: {starlark: {source: ...}}) in every namespace. Off by default: a template that uses one is refused.")
	fs.StringSliceVar(&o.Namespaces, "starlark-namespaces", o.Namespaces,
		"Run Starlark transformers in these namespaces only (without --enable-starlark).")
	fs.IntVar(&o.Steps, "starlark-max-steps", o.Steps, "Bytecode steps one Starlark transformer run may take.")
	fs.DurationVar(&o.Timeout, "starlark-timeout", o.Timeout, "Wall-clock time one Starlark transformer run may take.")
	fs.IntVar(&o.MemoryBytes, "starlark-max-memory-bytes", o.MemoryBytes,
		"Bytes one Starlark transformer run's operators and built-ins may create, all together.")
}

// Validate reports every bound that is not positive or is past a thousand times its default.
func (o *StarlarkOptions) Validate() []error {
	d := transform.DefaultLimits()
	return checkLimits(
		count("starlark-max-steps", o.Steps, d.StarlarkSteps),
		duration("starlark-timeout", o.Timeout, d.StarlarkTimeout),
		count("starlark-max-memory-bytes", o.MemoryBytes, d.StarlarkMemoryBytes),
	)
}

// ApplyTo sets the Starlark limits of c, and nothing else (ProcessingOptions.ApplyTo sets the
// rest, before or after: StarlarkOptions is the one holder of these limits).
func (o *StarlarkOptions) ApplyTo(c *render.Config) {
	c.Limits.StarlarkSteps, c.Limits.StarlarkTimeout, c.Limits.StarlarkMemoryBytes = o.Steps, o.Timeout, o.MemoryBytes
}

// allowed returns whether Starlark transformers run in namespace.
func (o *StarlarkOptions) allowed() func(namespace string) bool {
	namespaces := map[string]bool{}
	for _, ns := range o.Namespaces {
		namespaces[ns] = true
	}
	enabled := o.Enabled
	return func(namespace string) bool { return enabled || namespaces[namespace] }
}
