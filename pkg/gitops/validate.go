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
	"path"
	"regexp"
	"strings"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

var (
	parameterName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	goIdentifier  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	revisionHash  = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// Validate returns every problem of a render file that can be known before anything it names
// is read, each at its field path.
func Validate(r *v1alpha1.TemplateRender) field.ErrorList {
	var errs field.ErrorList
	if want := v1alpha1.SchemeGroupVersion.String(); r.APIVersion != want {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), r.APIVersion, []string{want}))
	}
	if r.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), r.Kind, []string{Kind}))
	}
	meta := field.NewPath("metadata")
	if r.Name != "" {
		for _, msg := range validation.IsDNS1123Subdomain(r.Name) {
			errs = append(errs, field.Invalid(meta.Child("name"), r.Name, msg))
		}
	}
	if r.Namespace != "" {
		errs = append(errs, field.Forbidden(meta.Child("namespace"), "a render file is no object of a namespace: the application's destination decides where its objects go"))
	}
	return append(errs, validateSpec(&r.Spec, field.NewPath("spec"))...)
}

func validateSpec(s *v1alpha1.TemplateRenderSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	var set []string
	if s.TemplateFile != "" {
		set = append(set, "templateFile")
		errs = append(errs, validateRelativePath(s.TemplateFile, p.Child("templateFile"))...)
	}
	if s.Template != nil {
		set = append(set, "template")
	}
	if s.TemplateRef != nil {
		set = append(set, "templateRef")
		errs = append(errs, validateTemplateRef(s.TemplateRef, p.Child("templateRef"))...)
	}
	switch len(set) {
	case 0:
		errs = append(errs, field.Required(p.Child("templateFile"), "give the template: templateFile (a file beside the render file), template (inline) or templateRef (a revision stored on the cluster)"))
	case 1:
	default:
		errs = append(errs, field.Invalid(p, strings.Join(set, ", "), "give exactly one of templateFile, template and templateRef"))
	}
	seen := map[string]bool{}
	for i, f := range s.ValuesFiles {
		fp := p.Child("valuesFiles").Index(i)
		errs = append(errs, validateRelativePath(f, fp)...)
		if seen[path.Clean(f)] {
			errs = append(errs, field.Duplicate(fp, f))
		}
		seen[path.Clean(f)] = true
	}
	for name := range s.Parameters {
		if !parameterName.MatchString(name) {
			errs = append(errs, field.Invalid(p.Child("parameters").Key(name), name, "a parameter name matches ^[A-Za-z_][A-Za-z0-9_]*$"))
		}
	}
	for key := range s.Labels {
		errs = append(errs, metav1validation.ValidateLabelName(key, p.Child("labels").Key(key))...)
	}
	for key := range s.Properties {
		if !goIdentifier.MatchString(key) {
			errs = append(errs, field.Invalid(p.Child("properties").Key(key), key, "a property is named by a Go identifier"))
		}
	}
	return errs
}

func validateTemplateRef(ref *v1alpha1.TemplateRevisionReference, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ref.Namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), "the namespace of the Template"))
	} else {
		for _, msg := range validation.IsDNS1123Label(ref.Namespace) {
			errs = append(errs, field.Invalid(p.Child("namespace"), ref.Namespace, msg))
		}
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "the name of the Template"))
	} else {
		for _, msg := range validation.IsDNS1123Subdomain(ref.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
		}
	}
	if !revisionHash.MatchString(ref.Hash) {
		errs = append(errs, field.Invalid(p.Child("hash"), ref.Hash, `must be a revision's hash, "sha256:" and 64 lowercase hex digits (kubectl get templaterevisions -o custom-columns=NAME:.metadata.name,HASH:.hash)`))
	}
	return errs
}

// validateRelativePath refuses what names a file outside the render file's directory by its
// spelling; the directory's opener refuses symbolic links that lead out.
func validateRelativePath(name string, p *field.Path) field.ErrorList {
	switch {
	case name == "":
		return field.ErrorList{field.Required(p, "a file beside the render file")}
	case strings.ContainsRune(name, 0):
		return field.ErrorList{field.Invalid(p, name, "a path has no NUL character")}
	case path.IsAbs(name) || strings.HasPrefix(name, `\`):
		return field.ErrorList{field.Invalid(p, name, "must be relative to the render file's directory, not absolute")}
	}
	for _, element := range strings.Split(strings.ReplaceAll(name, `\`, "/"), "/") {
		if element == ".." {
			return field.ErrorList{field.Invalid(p, name, "must stay inside the render file's directory: .. is refused")}
		}
	}
	return nil
}
