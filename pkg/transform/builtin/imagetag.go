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

package builtin

import (
	"fmt"
	"regexp"
	"strings"
	"unsafe"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// Image is Kustomize's image override: which image to change and what to.
type Image struct {
	// Name is the image name to match, without tag or digest.
	Name string `json:"name"`
	// NewName replaces the name.
	NewName string `json:"newName,omitempty"`
	// NewTag replaces the tag (and drops a digest unless Digest is also given).
	NewTag string `json:"newTag,omitempty"`
	// Digest replaces the digest (and drops the tag unless NewTag is also given).
	Digest string `json:"digest,omitempty"`
	// TagSuffix is appended to the current tag.
	TagSuffix string `json:"tagSuffix,omitempty"`
}

// ImageTagConfig is the config of ImageTagTransformer (Kustomize's images).
type ImageTagConfig struct {
	transform.ConfigMeta
	// ImageTag says which image to change and how.
	ImageTag Image `json:"imageTag"`
	// FieldSpecs, when given, replace the default image fields; container lists at any
	// depth are always covered.
	FieldSpecs []filters.FieldSpec `json:"fieldSpecs,omitempty"`
}

type imageTagTransformer struct {
	image Image
	match *regexp.Regexp
	specs filters.SpecSet
}

func newImageTagTransformer(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var c ImageTagConfig
	if errs := transform.DecodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	var errs field.ErrorList
	imgPath := fldPath.Child("imageTag")
	if c.ImageTag.Name == "" {
		errs = append(errs, field.Required(imgPath.Child("name"), ""))
	} else if _, tag, digest := splitImage(c.ImageTag.Name); tag != "" || digest != "" {
		errs = append(errs, field.Invalid(imgPath.Child("name"), c.ImageTag.Name, "must be an image name without tag or digest"))
	}
	specs, specErrs := filters.CompileFieldSpecs(c.FieldSpecs, fldPath.Child("fieldSpecs"))
	errs = append(errs, specErrs...)
	// The name is quoted (Kustomize pastes it into the pattern, so "." matches any character);
	// the tag and digest parts are Kustomize's.
	match := regexp.MustCompile("^" + regexp.QuoteMeta(c.ImageTag.Name) +
		`(:[a-zA-Z0-9_.{}-]*)?(@[a-zA-Z0-9]+([.+_-][a-zA-Z0-9]+)*:[a-zA-Z0-9_.{}-]*)?$`)
	return &imageTagTransformer{image: c.ImageTag, match: match, specs: filters.WithDefaults(defaultImages, specs, c.FieldSpecs != nil)}, errs
}

// Transform rewrites matching images in container lists anywhere in an object, as Kustomize's
// legacy image filter does, and in the fields of the specs.
func (t *imageTagTransformer) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	for _, obj := range objects {
		if err := ctx.Spend(0); err != nil {
			return nil, err
		}
		id := transform.GVKOf(obj)
		if id.Kind == "CustomResourceDefinition" {
			continue
		}
		// Containers updated by the walk are not updated again by a spec, which would append
		// a TagSuffix twice.
		var done map[unsafe.Pointer]bool // containers whose image matched
		for k, v := range obj {
			// Metadata holds no containers; skipping it saves most of the walk.
			if k != "metadata" {
				if err := t.walkContainers(ctx, v, &done); err != nil {
					return nil, err
				}
			}
		}
		for _, s := range t.specs.ForKind(id.Kind) {
			if !s.Matches(id) {
				continue
			}
			err := s.Apply(obj, func(parent map[string]any, key string) error {
				if done[transform.ObjectKey(parent)] {
					return nil
				}
				switch v := parent[key].(type) {
				case string:
					parent[key] = t.update(v)
					return ctx.Spend(len(parent[key].(string)) - len(v))
				case nil:
				default:
					return fmt.Errorf("image must be a string")
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return objects, nil
}

// walkContainers updates the image of every element of a "containers" or "initContainers"
// list at any depth. A new name or tag is a new string in every container it reaches, spent
// from ctx's budget.
func (t *imageTagTransformer) walkContainers(ctx *transform.Context, node any, done *map[unsafe.Pointer]bool) error {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			switch v.(type) {
			case map[string]any, []any:
			default:
				continue
			}
			if list, ok := v.([]any); ok && (k == "containers" || k == "initContainers") {
				// A container holds no further containers, so the walk stops here.
				for _, c := range list {
					if cm, ok := c.(map[string]any); ok {
						if img, ok := cm["image"].(string); ok && t.matches(img) {
							updated := t.update(img)
							cm["image"] = updated
							if *done == nil {
								*done = map[unsafe.Pointer]bool{}
							}
							(*done)[transform.ObjectKey(cm)] = true
							if err := ctx.Spend(len(updated) - len(img)); err != nil {
								return err
							}
						}
					}
				}
				continue
			}
			if err := t.walkContainers(ctx, v, done); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range n {
			if err := t.walkContainers(ctx, e, done); err != nil {
				return err
			}
		}
	}
	return nil
}

// update applies the override to one image reference if it matches.
func (t *imageTagTransformer) update(image string) string {
	if !t.matches(image) {
		return image
	}
	name, tag, digest := splitImage(image)
	if t.image.NewName != "" {
		name = t.image.NewName
	}
	switch {
	case t.image.NewTag != "" && t.image.Digest != "":
		tag, digest = t.image.NewTag, t.image.Digest
	case t.image.NewTag != "":
		tag, digest = t.image.NewTag, ""
	case t.image.Digest != "":
		tag, digest = "", t.image.Digest
	case t.image.TagSuffix != "":
		tag, digest = tag+t.image.TagSuffix, ""
	}
	if tag != "" {
		name += ":" + tag
	}
	if digest != "" {
		name += "@" + digest
	}
	return name
}

// matches reports whether image is the one to change; the prefix test avoids most regex runs.
func (t *imageTagTransformer) matches(image string) bool {
	return strings.HasPrefix(image, t.image.Name) && t.match.MatchString(image)
}

// splitImage splits an image reference into name, tag and digest; a colon before the first
// slash is a registry port, not a tag.
func splitImage(image string) (name, tag, digest string) {
	search, offset := image, 0
	if i := strings.IndexByte(image, '/'); i > 0 {
		search, offset = image[i:], i
	}
	at := strings.IndexByte(search, '@')
	colon := strings.IndexByte(search, ':')
	switch {
	case at < 0 && colon < 0:
		return image, "", ""
	case at >= 0 && (colon < 0 || at < colon):
		return image[:offset+at], "", image[offset+at+1:]
	case at >= 0:
		return image[:offset+colon], image[offset+colon+1 : offset+at], image[offset+at+1:]
	}
	return image[:offset+colon], image[offset+colon+1:], ""
}
