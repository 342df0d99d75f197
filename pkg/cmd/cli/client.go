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
	"k8s.io/client-go/rest"

	stencilclient "stencil.dev/stencil/pkg/client"
)

// newClient builds a client as kubectl does from its flags and kubeconfig, with the server's
// warnings printed to the error stream.
func newClient(config *ConfigFlags, streams IOStreams) (stencilclient.Interface, string, error) {
	restConfig, err := config.ToRESTConfig()
	if err != nil {
		return nil, "", err
	}
	restConfig = rest.CopyConfig(restConfig)
	restConfig.WarningHandler = rest.NewWarningWriter(streams.ErrOut, rest.WarningWriterOptions{Deduplicate: true})
	namespace, _, err := config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, "", err
	}
	cs, err := stencilclient.NewForConfig(restConfig)
	return cs, namespace, err
}
