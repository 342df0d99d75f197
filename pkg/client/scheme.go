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

package client

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// stencilScheme holds what the generated clientset's scheme package holds (Stencil's kinds
// and the meta types its answers and errors are), built on the first request rather than
// when the program starts: most CLI runs (process --local, render, version) never talk to
// a server, and a render plugin starts the CLI once per render.
type stencilScheme struct {
	scheme         *runtime.Scheme
	codecs         serializer.CodecFactory
	parameterCodec runtime.ParameterCodec
}

var schemeOnce = sync.OnceValue(func() *stencilScheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	utilruntime.Must(templatesv1.AddToScheme(s))
	return &stencilScheme{scheme: s, codecs: serializer.NewCodecFactory(s), parameterCodec: runtime.NewParameterCodec(s)}
})

// parameterCodec encodes the options of a request into its query.
func parameterCodec() runtime.ParameterCodec {
	return schemeOnce().parameterCodec
}
