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
	"encoding/json"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// Replica is Kustomize's replica override.
type Replica struct {
	// Name is the exact name of the object, current or original.
	Name string `json:"name"`
	// Count is the new replica count.
	Count int64 `json:"count"`
}

// ReplicaCountConfig is the config of ReplicaCountTransformer (Kustomize's replicas).
type ReplicaCountConfig struct {
	transform.ConfigMeta
	// Replica names the object and the count.
	Replica Replica `json:"replica"`
	// FieldSpecs, when given, replace the default spec/replicas of Deployments,
	// ReplicationControllers, ReplicaSets and StatefulSets.
	FieldSpecs []filters.FieldSpec `json:"fieldSpecs,omitempty"`
}

type replicaCountTransformer struct {
	name  string
	count json.Number
	specs filters.SpecSet
}

func newReplicaCountTransformer(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var c ReplicaCountConfig
	if errs := transform.DecodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	var errs field.ErrorList
	if c.Replica.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("replica", "name"), ""))
	}
	if c.Replica.Count < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("replica", "count"), c.Replica.Count, "must not be negative"))
	}
	specs, specErrs := filters.CompileFieldSpecs(c.FieldSpecs, fldPath.Child("fieldSpecs"))
	errs = append(errs, specErrs...)
	return &replicaCountTransformer{
		name:  c.Replica.Name,
		count: json.Number(strconv.FormatInt(c.Replica.Count, 10)),
		specs: filters.WithDefaults(defaultReplicas, specs, c.FieldSpecs != nil),
	}, errs
}

// Transform sets the replica count of the objects of that name. Kustomize fails when no
// object matches; here, as for patches, that is a warning, so that a transformer list
// imported from another template does not break on a template without that workload.
func (t *replicaCountTransformer) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	matched := false
	set := func(parent map[string]any, key string) error {
		parent[key] = t.count
		matched = true
		return nil
	}
	for _, obj := range objects {
		orig, _ := ctx.OriginalName(obj)
		if transform.NameOf(obj) != t.name && orig != t.name {
			continue
		}
		id := transform.GVKOf(obj)
		for _, s := range t.specs.ForKind(id.Kind) {
			if s.Matches(id) {
				if err := s.Apply(obj, set); err != nil {
					return nil, err
				}
			}
		}
	}
	if !matched {
		ctx.Warnf("no object named %q has a replica count to set", t.name)
	}
	return objects, nil
}
