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

package templates

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxEntries bounds each map and keyed list of the bodies the API reads (labels, annotations,
// parameters, properties, destinations). Before any validation, the API server tracks the
// managed fields of a body with structured-merge-diff, whose time grows with the square of a
// map's entries: 80,000 labels took 8 s, and a 3 MB body of 250,000 would outlast the request
// timeout. Real objects have dozens.
const MaxEntries = 4096

// MaxObjects bounds a Template's lists of objects and of transformer and generator configs.
// Each element costs decoding and the Template's checks about 550 bytes however small it is:
// 350,000 empty objects in a 1 MB body held 176 MB. A 3 MiB body holds about 10,000 objects of
// a usual size; the 394 templates of OpenShift's corpus have 76 at most.
const MaxObjects = 16384

// EntryCount is the number of entries of one field.
// +k8s:deepcopy-gen=false
type EntryCount struct {
	Path string
	N    int
	// Max is the count's bound; zero means MaxEntries.
	Max int
}

// MetadataEntries counts the maps of metadata.
func MetadataEntries(meta *metav1.ObjectMeta) []EntryCount {
	return []EntryCount{{Path: "metadata.labels", N: len(meta.Labels)}, {Path: "metadata.annotations", N: len(meta.Annotations)}}
}

// EntryErrors reports each count beyond its bound: MaxEntries, or Max when it is set. They must
// be refused while the body is decoded, before the field manager reads it.
func EntryErrors(counts ...EntryCount) field.ErrorList {
	var errs field.ErrorList
	for _, c := range counts {
		bound := MaxEntries
		if c.Max > 0 {
			bound = c.Max
		}
		if c.N > bound {
			errs = append(errs, field.TooMany(field.NewPath(c.Path), c.N, bound))
		}
	}
	return errs
}
