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

// Command helm-driver drives the Helm v4 library as the helm CLI does, for Stencil's e2e
// tests of adoption: it installs and upgrades a chart directory (client-side or server-side
// apply) and lists releases with the library's list action, so that what the tests adopt is
// exactly what Helm itself stores.
//
//	helm-driver [--kubeconfig K] [--namespace N] install RELEASE CHART [--server-side] [--set k=v]...
//	helm-driver [--kubeconfig K] [--namespace N] upgrade RELEASE CHART [--server-side] [--set k=v]...
//	helm-driver [--kubeconfig K] [--namespace N] list
//
// Without --kubeconfig it reads the kubeconfig as kubectl does; without --namespace it works
// in the context's namespace.
//
// list prints one line per release: name, revision, status and chart, tab-separated.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"helm.sh/helm/v4/pkg/action"
	helmchart "helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/kube"
	"helm.sh/helm/v4/pkg/release"
	"helm.sh/helm/v4/pkg/strvals"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "helm-driver:", err)
		os.Exit(1)
	}
}

type setFlags []string

func (s *setFlags) String() string     { return fmt.Sprint(*s) }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func run(args []string, out io.Writer) error {
	global := flag.NewFlagSet("helm-driver", flag.ContinueOnError)
	kubeconfig := global.String("kubeconfig", "", "kubeconfig of the cluster")
	namespace := global.String("namespace", "", "namespace of the release; the kubeconfig context's if not given")
	if err := global.Parse(args); err != nil {
		return err
	}
	if global.NArg() == 0 {
		return fmt.Errorf("no command: install, upgrade or list")
	}
	// The helm CLI's field manager, so that objects look as `helm install` leaves them.
	kube.ManagedFieldsManager = "helm"
	getter := genericclioptions.NewConfigFlags(false)
	getter.KubeConfig = kubeconfig
	if *namespace == "" {
		ns, _, err := getter.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return err
		}
		*namespace = ns
	}
	getter.Namespace = namespace
	cfg := action.NewConfiguration()
	if err := cfg.Init(getter, *namespace, "secret"); err != nil {
		return err
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	command, rest := global.Arg(0), global.Args()[1:]
	switch command {
	case "list":
		return list(cfg, out)
	case "install", "upgrade":
		return installOrUpgrade(cfg, command, *namespace, rest, out)
	default:
		return fmt.Errorf("unknown command %q: install, upgrade or list", command)
	}
}

func installOrUpgrade(cfg *action.Configuration, command, namespace string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	serverSide := fs.Bool("server-side", false, "apply with server-side apply (Helm 4's default) instead of client-side")
	var sets setFlags
	fs.Var(&sets, "set", "a value, as helm --set takes it (repeatable)")
	// Flags may follow the two positional arguments, as with the helm CLI.
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 2 {
		return fmt.Errorf("%s RELEASE CHART: got %q", command, positional)
	}
	name, chartDir := positional[0], positional[1]
	chart, err := loader.Load(chartDir)
	if err != nil {
		return err
	}
	values := map[string]any{}
	for _, s := range sets {
		if err := strvals.ParseInto(s, values); err != nil {
			return fmt.Errorf("--set %s: %w", s, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var rel release.Releaser
	if command == "install" {
		install := action.NewInstall(cfg)
		install.ReleaseName, install.Namespace = name, namespace
		install.ServerSideApply = *serverSide
		// Nothing runs Pods in the test cluster: do not wait for readiness.
		install.WaitStrategy = kube.HookOnlyStrategy
		install.Timeout = time.Minute
		rel, err = install.RunWithContext(ctx, chart, values)
	} else {
		upgrade := action.NewUpgrade(cfg)
		upgrade.Namespace = namespace
		upgrade.ServerSideApply = strconv.FormatBool(*serverSide)
		upgrade.WaitStrategy = kube.HookOnlyStrategy
		upgrade.Timeout = time.Minute
		rel, err = upgrade.RunWithContext(ctx, name, chart, values)
	}
	if err != nil {
		return err
	}
	acc, err := release.NewAccessor(rel)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s\t%d\t%s\n", acc.Name(), acc.Version(), acc.Status())
	return nil
}

// list runs the library's list action as `helm list` does by default: the latest revision of
// every deployed or failed release of the namespace.
func list(cfg *action.Configuration, out io.Writer) error {
	l := action.NewList(cfg)
	l.SetStateMask()
	releases, err := l.Run()
	if err != nil {
		return err
	}
	for _, r := range releases {
		acc, err := release.NewAccessor(r)
		if err != nil {
			return err
		}
		chart := ""
		if c := acc.Chart(); c != nil {
			if ca, err := helmchart.NewAccessor(c); err == nil {
				chart = fmt.Sprintf("%s-%v", ca.Name(), ca.MetadataAsMap()["version"])
			}
		}
		fmt.Fprintf(out, "%s\t%d\t%s\t%s\n", acc.Name(), acc.Version(), acc.Status(), chart)
	}
	return nil
}
