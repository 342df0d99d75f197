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

package transform

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
)

func init() {
	registerGenerator("ConfigMapGenerator", newConfigMapGenerator)
	registerGenerator("SecretGenerator", newSecretGenerator)
}

// GeneratorArgs are the fields ConfigMapGenerator and SecretGenerator share, Kustomize's
// GeneratorArgs. The server reads no files, so envs and files are given inline: each entry of
// envs is the text of an env file, and each entry of files has its key and its content.
type GeneratorArgs struct {
	// Name and Namespace of the generated object; metadata.name and metadata.namespace of the
	// config are used when these are empty, as Kustomize does.
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
	ConfigMeta
	GeneratorArgs
}

// SecretGeneratorConfig is the config of SecretGenerator.
type SecretGeneratorConfig struct {
	ConfigMeta
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

func newConfigMapGenerator(config []byte, fldPath *field.Path) (Transformer, field.ErrorList) {
	var c ConfigMapGeneratorConfig
	if errs := decodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	return newDataGenerator("ConfigMap", c.ConfigMeta, c.GeneratorArgs, "", fldPath)
}

func newSecretGenerator(config []byte, fldPath *field.Path) (Transformer, field.ErrorList) {
	var c SecretGeneratorConfig
	if errs := decodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	if c.Type == "" {
		c.Type = "Opaque"
	}
	return newDataGenerator("Secret", c.ConfigMeta, c.GeneratorArgs, c.Type, fldPath)
}

// newDataGenerator reads the sources in Kustomize's order (envs, literals, files) and checks
// every key, reporting all problems at once.
func newDataGenerator(kind string, meta ConfigMeta, args GeneratorArgs, secretType string, fldPath *field.Path) (Transformer, field.ErrorList) {
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

// Transform adds the generated object, or replaces or merges into the one already there.
func (g *dataGenerator) Transform(ctx *Context, objects []Object) ([]Object, error) {
	obj := g.object()
	match := -1
	for i, o := range objects {
		if g.sameID(o) {
			if match >= 0 {
				return nil, fmt.Errorf("found several objects that could accept the %s %s", g.kind, g.name)
			}
			match = i
		}
	}
	behavior := g.behavior
	if behavior == "" {
		behavior = behaviorCreate
	}
	switch {
	case match < 0 && behavior != behaviorCreate:
		return nil, fmt.Errorf("the %s %s does not exist; cannot %s it", g.kind, g.describeName(), behavior)
	case match < 0:
		ctx.markForHash(obj, !g.options.DisableNameSuffixHash)
		return append(objects, obj), nil
	case behavior == behaviorCreate:
		return nil, fmt.Errorf("the %s %s exists already: behavior must be merge or replace", g.kind, g.describeName())
	}
	old := objects[match]
	mergeMeta(obj, old)
	if behavior == behaviorMerge {
		for _, key := range []string{"data", "binaryData"} {
			if merged := mergeMaps(nestedMap(old, key), nestedMap(obj, key)); len(merged) > 0 {
				obj[key] = merged
			}
		}
	}
	// As in Kustomize, the result keeps the hash suffix only when both the object merged into
	// was to get one (it was generated) and this generator wants one: merging into a plain
	// object keeps its name.
	hash := ctx.needsHash[objectKey(old)] && !g.options.DisableNameSuffixHash
	ctx.unmarkForHash(old)
	ctx.markForHash(obj, hash)
	objects[match] = obj
	return objects, nil
}

func (g *dataGenerator) describeName() string {
	if g.namespace != "" {
		return g.namespace + "/" + g.name
	}
	return g.name
}

// sameID reports whether o has the generated object's group, version, kind, name and
// namespace; an empty namespace and "default" are the same, as Kustomize's ResId says.
func (g *dataGenerator) sameID(o Object) bool {
	if nestedString(o, "apiVersion") != "v1" || nestedString(o, "kind") != g.kind || objectName(o) != g.name {
		return false
	}
	ns := objectNamespace(o)
	return ns == g.namespace || (ns == "" && g.namespace == "default") || (ns == "default" && g.namespace == "")
}

// object builds the generated object as Kustomize's generators do.
func (g *dataGenerator) object() Object {
	metadata := map[string]any{"name": g.name}
	if g.namespace != "" {
		metadata["namespace"] = g.namespace
	}
	if len(g.options.Labels) > 0 {
		metadata["labels"] = stringMap(g.options.Labels)
	}
	if len(g.options.Annotations) > 0 {
		metadata["annotations"] = stringMap(g.options.Annotations)
	}
	obj := Object{"apiVersion": "v1", "kind": g.kind, "metadata": metadata}
	if g.kind == "Secret" {
		obj["type"] = g.secretType
	}
	data, binary := map[string]any{}, map[string]any{}
	for _, p := range g.data {
		switch {
		case g.kind == "Secret":
			data[p.key] = wrappedBase64(p.value)
		case utf8.ValidString(p.value):
			data[p.key] = p.value
		default:
			binary[p.key] = wrappedBase64(p.value)
		}
	}
	if len(data) > 0 {
		obj["data"] = data
	}
	if len(binary) > 0 {
		obj["binaryData"] = binary
	}
	if g.options.Immutable {
		obj["immutable"] = true
	}
	return obj
}

// wrappedBase64 is base64 with a line break after every 70 characters when it is longer,
// exactly as Kustomize writes Secret data: the hash is computed over these strings, and
// Kubernetes' base64 decoding ignores the breaks.
func wrappedBase64(s string) string {
	const lineLen = 70
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	if len(enc) < lineLen {
		return enc
	}
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/lineLen + 1)
	for i := 0; i < len(enc); i += lineLen {
		b.WriteString(enc[i:min(i+lineLen, len(enc))])
		b.WriteByte('\n')
	}
	return b.String()
}

// mergeMeta gives obj the name and namespace of old and the union of both objects' labels and
// annotations, obj's winning, as Kustomize's replace and merge do.
func mergeMeta(obj, old Object) {
	metadata := obj["metadata"].(map[string]any)
	metadata["name"] = objectName(old)
	if ns := objectNamespace(old); ns != "" {
		metadata["namespace"] = ns
	} else {
		delete(metadata, "namespace")
	}
	for _, key := range []string{"labels", "annotations"} {
		if merged := mergeMaps(nestedMap(old, "metadata", key), nestedMap(obj, "metadata", key)); len(merged) > 0 {
			metadata[key] = merged
		}
	}
}

// mergeMaps returns the union of a and b, b's values winning.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
