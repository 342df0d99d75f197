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

import "stencil.dev/stencil/pkg/transform"

// Register adds every built-in transformer (apiVersion builtin) to reg. Each lives in
// a file of its own, named after it.
func Register(reg *transform.Registry) {
	reg.AddTransformer("AnnotationsTransformer", newAnnotationsTransformer)
	reg.AddTransformer("CleanupTransformer", newCleanupTransformer)
	reg.AddTransformer("ImageTagTransformer", newImageTagTransformer)
	reg.AddTransformer("LabelTransformer", newLabelTransformer)
	reg.AddTransformer("NamespaceTransformer", newNamespaceTransformer)
	reg.AddTransformer("PatchTransformer", newPatchTransformer)
	reg.AddTransformer("PrefixSuffixTransformer", newPrefixSuffix)
	reg.AddTransformer("RemoveTransformer", newRemoveTransformer)
	reg.AddTransformer("ReplicaCountTransformer", newReplicaCountTransformer)
}
