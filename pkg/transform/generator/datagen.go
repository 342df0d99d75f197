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

package generator

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
)

// Register adds the built-in generators (apiVersion builtin) to reg, and the pass
// that gives what they generate its content-hash name suffix once every transformer ran.
func Register(reg *transform.Registry) {
	reg.AddGenerator("ConfigMapGenerator", newConfigMapGenerator)
	reg.AddGenerator("SecretGenerator", newSecretGenerator)
	reg.SetNameHasher(appendHashes)
}

// GeneratorArgs are the fields ConfigMapGenerator and SecretGenerator share, Kustomize's
// GeneratorArgs. The server reads no files, so envs and files are given inline: each entry of
// envs is the text of an env file, and each entry of files has its key and its content.
type GeneratorArgs struct {
	// Name and Namespace of the generated object; metadata.name and metadata.namespace of the
	// Config are used when these are empty, as Kustomize does.
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// Behavior is create (the default), replace or merge: what to do with an object of the
	// same kind, name and namespace already in the list.
	Behavior string `json:"behavior,omitempty"`
	// Literals are key=value pairs; matching quotes around the value are removed.
	Literals []string `json:"literals,omitempty"`
	// Envs are the contents of env files: KEY=VALUE lines, blank and # lines skipped.
	Envs []string `json:"envs,omitempty"`
	// Env is the content of one more env file (Kustomize's deprecated singular form).
	Env string `json:"env,omitempty"`
	// Files are keys with their content, Kustomize's files without the files.
	Files []FileSource `json:"files,omitempty"`
	// Options set labels and annotations and turn off the hash suffix.
	Options *GeneratorOptions `json:"options,omitempty"`
}

// FileSource is one entry of files: the key and the file's content, as text or as base64 for
// bytes that are not UTF-8 (which a ConfigMap keeps in binaryData, as Kustomize does).
type FileSource struct {
	Key           string  `json:"key"`
	Content       *string `json:"content,omitempty"`
	ContentBase64 *string `json:"contentBase64,omitempty"`
	// path is a Kustomize file source ("key=path"), which the server cannot read; kept only
	// to say so.
	path string
}

// UnmarshalJSON accepts Kustomize's "[key=]path" strings only to refuse them with a clear
// message, instead of a type error.
func (f *FileSource) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		return json.Unmarshal(data, &f.path)
	}
	type plain FileSource
	return json.Unmarshal(data, (*plain)(f))
}

// GeneratorOptions are Kustomize's generator options.
type GeneratorOptions struct {
	// Labels and Annotations are set on the generated object's metadata.
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	// DisableNameSuffixHash keeps the name as written, without the content hash.
	DisableNameSuffixHash bool `json:"disableNameSuffixHash,omitempty"`
	// Immutable sets the object's immutable field.
	Immutable bool `json:"immutable,omitempty"`
}

// ConfigMapGeneratorConfig is the config of ConfigMapGenerator.
type ConfigMapGeneratorConfig struct {
	transform.ConfigMeta
	GeneratorArgs
}

// SecretGeneratorConfig is the config of SecretGenerator.
type SecretGeneratorConfig struct {
	transform.ConfigMeta
	GeneratorArgs
	// Type is the Secret's type, Opaque by default.
	Type string `json:"type,omitempty"`
}

// The behaviors of a generator towards an object it finds already in the list.
const (
	behaviorCreate  = "create"
	behaviorReplace = "replace"
	behaviorMerge   = "merge"
)

// dataGenerator makes one ConfigMap or Secret.
type dataGenerator struct {
	kind, name, namespace, behavior, secretType string
	data                                        []dataPair
	options                                     GeneratorOptions
}

// dataPair is one key and its value as bytes.
type dataPair struct{ key, value string }

func newConfigMapGenerator(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var c ConfigMapGeneratorConfig
	if errs := transform.DecodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	return newDataGenerator("ConfigMap", c.ConfigMeta, c.GeneratorArgs, "", fldPath)
}

func newSecretGenerator(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var c SecretGeneratorConfig
	if errs := transform.DecodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	if c.Type == "" {
		c.Type = "Opaque"
	}
	return newDataGenerator("Secret", c.ConfigMeta, c.GeneratorArgs, c.Type, fldPath)
}

// newDataGenerator reads the sources in Kustomize's order (envs, literals, files) and checks
// every key, reporting all problems at once.
func newDataGenerator(kind string, meta transform.ConfigMeta, args GeneratorArgs, secretType string, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	g := &dataGenerator{kind: kind, name: args.Name, namespace: args.Namespace, behavior: args.Behavior, secretType: secretType}
	if g.name == "" {
		g.name = meta.Metadata.Name
	}
	if g.namespace == "" {
		g.namespace = meta.Metadata.Namespace
	}
	if args.Options != nil {
		g.options = *args.Options
	}
	var errs field.ErrorList
	if g.name == "" {
		errs = append(errs, field.Required(fldPath.Child("metadata", "name"), "the name of the generated "+kind))
	}
	switch g.behavior {
	case "", behaviorCreate, behaviorReplace, behaviorMerge:
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("behavior"), g.behavior, []string{behaviorCreate, behaviorReplace, behaviorMerge}))
	}
	keys := map[string]bool{}
	add := func(key, value string, path *field.Path) {
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(path, key, msg))
		}
		if keys[key] {
			errs = append(errs, field.Invalid(path, key, fmt.Sprintf("%s %s illegally repeats the key %q", strings.ToLower(kind), g.name, key)))
		}
		keys[key] = true
		g.data = append(g.data, dataPair{key, value})
	}
	envs := args.Envs
	if args.Env != "" {
		envs = append(envs[:len(envs):len(envs)], args.Env)
	}
	for i, content := range envs {
		path := fldPath.Child("envs").Index(i)
		if i == len(args.Envs) {
			path = fldPath.Child("env")
		}
		if !strings.ContainsAny(content, "=\n") && strings.TrimSpace(content) != "" && !strings.HasPrefix(strings.TrimSpace(content), "#") {
			errs = append(errs, field.Invalid(path, content, "looks like a file path: give the env file's content (KEY=VALUE lines) inline; no file is read"))
			continue
		}
		pairs, err := envPairs(content)
		if err != nil {
			errs = append(errs, field.Invalid(path, "", err.Error()))
			continue
		}
		for _, p := range pairs {
			add(p.key, p.value, path)
		}
	}
	for i, lit := range args.Literals {
		path := fldPath.Child("literals").Index(i)
		k, v, ok := strings.Cut(lit, "=")
		if !ok || k == "" {
			errs = append(errs, field.Invalid(path, lit, "expected key=value"))
			continue
		}
		add(k, removeQuotes(v), path)
	}
	for i, f := range args.Files {
		path := fldPath.Child("files").Index(i)
		value, ferrs := f.value(path)
		if len(ferrs) > 0 {
			errs = append(errs, ferrs...)
			continue
		}
		add(f.Key, value, path.Child("key"))
	}
	return g, errs
}

// value returns a file source's content, or why it has none.
func (f *FileSource) value(path *field.Path) (string, field.ErrorList) {
	if f.path != "" {
		return "", field.ErrorList{field.Invalid(path, f.path,
			"file paths are not read: give {key: NAME, content: TEXT} (or contentBase64) inline")}
	}
	var errs field.ErrorList
	if f.Key == "" {
		errs = append(errs, field.Required(path.Child("key"), ""))
	}
	switch {
	case f.Content != nil && f.ContentBase64 != nil:
		errs = append(errs, field.Invalid(path, "", "give content or contentBase64, not both"))
	case f.Content != nil:
		return *f.Content, errs
	case f.ContentBase64 != nil:
		b, err := base64.StdEncoding.DecodeString(*f.ContentBase64)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("contentBase64"), "", "not base64: "+err.Error()))
		}
		return string(b), errs
	default:
		errs = append(errs, field.Required(path.Child("content"), "content or contentBase64"))
	}
	return "", errs
}

// removeQuotes removes quotes around a literal's value when both ends have the same one, as
// Kustomize does.
func removeQuotes(s string) string {
	if len(s) < 2 || s[0] != s[len(s)-1] || (s[0] != '"' && s[0] != '\'') {
		return s
	}
	return s[1 : len(s)-1]
}

// envPairs reads an env file as Kustomize does: a BOM on the first line and leading spaces
// are dropped, blank and # lines skipped, a line without "=" has an empty value.
func envPairs(content string) ([]dataPair, error) {
	var pairs []dataPair
	scanner := bufio.NewScanner(strings.NewReader(content))
	scanner.Buffer(nil, len(content)+1)
	for n := 0; scanner.Scan(); n++ {
		line := scanner.Bytes()
		if !utf8.Valid(line) {
			return nil, fmt.Errorf("line %d is not UTF-8", n+1)
		}
		if n == 0 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		line = bytes.TrimLeftFunc(line, unicode.IsSpace)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, v, _ := strings.Cut(string(line), "=")
		if msgs := validation.IsEnvVarName(k); len(msgs) > 0 {
			return nil, fmt.Errorf("line %d: %q is not a valid key name: %s", n+1, k, strings.Join(msgs, "; "))
		}
		pairs = append(pairs, dataPair{k, v})
	}
	return pairs, scanner.Err()
}
