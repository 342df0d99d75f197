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

// Command argocd-cmp-server is Argo CD's Config Management Plugin sidecar server, its own
// command (github.com/argoproj/argo-cd/v3/cmd/argocd-cmp-server/commands) under the name the
// argocd binary answers to in a sidecar. Argo CD ships it inside its multi-call argocd binary;
// this main links only the sidecar's command, with the logger the argocd main sets for it.
// (The argocd main's DNS SRV workaround is for the gRPC balancer its other commands link; this
// binary links none, and dials a unix socket.)
package main

import (
	"os"

	"k8s.io/klog/v2"

	cmpserver "github.com/argoproj/argo-cd/v3/cmd/argocd-cmp-server/commands"
	"github.com/argoproj/argo-cd/v3/util/log"
)

func main() {
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))
	command := cmpserver.NewCommand()
	command.SilenceErrors = true
	command.SilenceUsage = true
	if err := command.Execute(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
