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

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
)

// request gathers parameter values and labels from the flags. Every malformed entry is
// reported at once.
func (o *ProcessOptions) request() (process.Request, error) {
	req := process.Request{
		Parameters:              map[string]string{},
		Labels:                  map[string]string{},
		IgnoreUnknownParameters: o.IgnoreUnknownParameters,
		Generator:               o.Generator,
	}
	var problems []string
	if o.ParamFile != "" {
		data, err := o.read(o.ParamFile)
		if err != nil {
			return req, err
		}
		values, lines, fileProblems := parseParamFile(data, o.ParamFile)
		problems = append(problems, fileProblems...)
		for k, v := range values {
			req.Parameters[k] = v
			o.setOrigin(k, fmt.Sprintf("%s:%d:1: %s is given in the values file (--param-file)", fileName(o.ParamFile), lines[k], k))
		}
	}
	given := map[string]bool{}
	for _, p := range o.Params {
		key, value, ok := strings.Cut(p, "=")
		switch {
		case !ok || key == "":
			problems = append(problems, fmt.Sprintf("-p %q: a parameter is written KEY=VALUE", p))
			continue
		case given[key]:
			problems = append(problems, fmt.Sprintf("-p %s: the parameter is given more than once", key))
			continue
		}
		if old, fromFile := req.Parameters[key]; fromFile && old != value {
			fmt.Fprintf(o.streams.ErrOut, "Warning: -p %s overrides the value from %s\n", key, o.ParamFile)
		}
		given[key] = true
		req.Parameters[key] = value
		o.setOrigin(key, "command line: "+key+" is given with -p")
	}
	for _, l := range o.Labels {
		for _, pair := range strings.Split(l, ",") {
			key, value, ok := strings.Cut(pair, "=")
			if !ok || key == "" {
				problems = append(problems, fmt.Sprintf("-l %q: labels are written key=value,key2=value2", l))
				break
			}
			req.Labels[key] = value
		}
	}
	if len(problems) > 0 {
		return req, errors.New(strings.Join(problems, "\n       "))
	}
	return req, nil
}

// parseParamFile reads KEY=VALUE lines; blank lines and lines starting with # are skipped.
// The value is everything after the first "=", as written.
func parseParamFile(data []byte, name string) (values map[string]string, lines map[string]int, problems []string) {
	values, lines = map[string]string{}, map[string]int{}
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSuffix(scanner.Text(), "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			problems = append(problems, fmt.Sprintf("%s:%d: expected KEY=VALUE, got %q", name, n, line))
			continue
		}
		if _, dup := values[key]; dup {
			problems = append(problems, fmt.Sprintf("%s:%d: %s is given more than once", name, n, key))
			continue
		}
		values[key], lines[key] = value, n
	}
	if err := scanner.Err(); err != nil {
		problems = append(problems, fmt.Sprintf("%s: %v", name, err))
	}
	return values, lines, problems
}

// setOrigin records where the value of a parameter given to the request came from, for why.
func (o *ProcessOptions) setOrigin(name, line string) {
	if o.origins == nil {
		o.origins = map[string]string{}
	}
	o.origins[name] = line
}

// expansion gathers the template-expansion properties and destinations from the flags.
func (o *ProcessOptions) expansion() (map[string]string, []templates.Destination, error) {
	var problems []string
	properties := map[string]string{}
	for _, p := range o.Properties {
		key, value, ok := strings.Cut(p, "=")
		if !ok || key == "" {
			problems = append(problems, fmt.Sprintf("--property %q: a property is written KEY=VALUE", p))
			continue
		}
		properties[key] = value
	}
	var destinations []templates.Destination
	for _, name := range o.Destinations {
		destinations = append(destinations, templates.Destination{Name: name})
	}
	if len(problems) > 0 {
		return nil, nil, errors.New(strings.Join(problems, "\n       "))
	}
	return properties, destinations, nil
}
