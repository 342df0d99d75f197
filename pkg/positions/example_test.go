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

package positions_test

import (
	"fmt"

	"stencil.dev/stencil/pkg/positions"
)

// A diagnostic about a field of a template file, in the form editors and CI annotators read.
func Example() {
	file := []byte("kind: Template\nobjects:\n- kind: Deployment\n  spec:\n    replicas: three\n")
	x, err := positions.Read("t.yaml", file)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(x.JSON()))
	fmt.Printf("%s: must be an integer\n", x.Locate("objects[0].spec.replicas"))
	span, _ := x.Lookup("objects[0].spec.replicas")
	fmt.Println(span.Key, span.Value)
	path, _ := x.PathAt(5, 16)
	fmt.Println(path)
	// Output:
	// {"kind":"Template","objects":[{"kind":"Deployment","spec":{"replicas":"three"}}]}
	// t.yaml:5:5: must be an integer
	// 5:5 5:15
	// objects[0].spec.replicas
}
