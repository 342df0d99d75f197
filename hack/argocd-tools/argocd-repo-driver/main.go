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

// Command argocd-repo-driver runs Argo CD's repository service as argocd-repo-server does
// (reposerver.NewServer and its gRPC server, the cache in memory instead of Redis, TLS off on
// loopback) and asks it, over gRPC with Argo CD's own client, what Argo CD's application
// controller and API server ask: GenerateManifest and GetAppDetails. The test that proves the
// Stencil plugin (test/argocd) writes one JSON request per line on standard input and reads
// one JSON answer per line on standard output; the requests carry an Application's source
// (repository, path, revision, the plugin's name, parameters and env) as the controller sends
// it. The plugins are found as argocd-repo-server finds them: the sockets of the cmp-server
// sidecars in ARGOCD_PLUGINSOCKFILEPATH.
//
// Flags: --work DIR is where the askpass socket goes; the repository checkouts go under
// TMPDIR, as argocd-repo-server puts them. Requests are answered concurrently, in the order
// they finish, each with the id of its request.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/reposerver"
	"github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	reposervercache "github.com/argoproj/argo-cd/v3/reposerver/cache"
	"github.com/argoproj/argo-cd/v3/reposerver/metrics"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	"github.com/argoproj/argo-cd/v3/util/askpass"
	cacheutil "github.com/argoproj/argo-cd/v3/util/cache"
	"github.com/argoproj/argo-cd/v3/util/log"
	"github.com/argoproj/argo-cd/v3/util/tls"
)

// request is one question to the repository service.
type request struct {
	ID int `json:"id"`
	// Op is generate (GenerateManifest) or appDetails (GetAppDetails).
	Op string `json:"op"`
	// Repo is the repository's URL (file:///...), Revision what the Application targets.
	Repo     string `json:"repo"`
	Revision string `json:"revision"`
	// Path is the Application's source path in the repository.
	Path string `json:"path"`
	// AppName, Namespace (the destination's) and Project are the Application's.
	AppName   string `json:"appName"`
	Namespace string `json:"namespace"`
	Project   string `json:"project"`
	// Plugin is the source's plugin section: name, env, parameters, as an Application has it.
	Plugin *v1alpha1.ApplicationSourcePlugin `json:"plugin,omitempty"`
	// KubeVersion and APIVersions are the destination cluster's, as the controller sends them.
	KubeVersion string   `json:"kubeVersion"`
	APIVersions []string `json:"apiVersions"`
	// AppLabelKey and TrackingMethod make Argo CD mark each object as the application's, as
	// the controller asks; empty leaves the objects as the plugin wrote them.
	AppLabelKey    string `json:"appLabelKey,omitempty"`
	TrackingMethod string `json:"trackingMethod,omitempty"`
	// NoCache is a hard refresh: generate again, whatever the cache holds.
	NoCache bool `json:"noCache"`
	// Repeat asks generate that many times (a benchmark); the answer carries each call's
	// latency and the last call's manifests.
	Repeat int `json:"repeat,omitempty"`
}

// response is the answer to one request.
type response struct {
	ID         int      `json:"id"`
	Manifests  []string `json:"manifests,omitempty"`
	Revision   string   `json:"revision,omitempty"`
	SourceType string   `json:"sourceType,omitempty"`
	// Parameters are GetAppDetails' plugin parameter announcements.
	Parameters []*apiclient.ParameterAnnouncement `json:"parameters,omitempty"`
	// Error is the gRPC error's message, Code its code.
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
	// Nanos are the latencies of the calls of a repeated generate, in nanoseconds.
	Nanos []int64 `json:"nanos,omitempty"`
}

func main() {
	work := flag.String("work", "", "a private directory for the askpass socket")
	flag.Parse()
	if *work == "" {
		fmt.Fprintln(os.Stderr, "argocd-repo-driver: --work is required")
		os.Exit(2)
	}
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))
	client, err := start(*work)
	if err != nil {
		fmt.Fprintln(os.Stderr, "argocd-repo-driver:", err)
		os.Exit(1)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	// Each request is asked as soon as it is read, as the controller asks for many
	// applications at once; the answers are written as they come, by id.
	for in.Scan() {
		req := &request{}
		if err := json.Unmarshal(in.Bytes(), req); err != nil {
			fmt.Fprintln(os.Stderr, "argocd-repo-driver: bad request:", err)
			os.Exit(2)
		}
		wg.Go(func() {
			res := answer(client, req)
			mu.Lock()
			defer mu.Unlock()
			if err := out.Encode(res); err != nil {
				os.Exit(1)
			}
		})
	}
	wg.Wait()
}

// start serves the repository service on a loopback port, as argocd-repo-server with its
// default settings and --disable-tls, and returns Argo CD's client of it.
func start(work string) (apiclient.RepoServerServiceClient, error) {
	quantity := func(s string) int64 { q := resource.MustParse(s); return q.ToDec().Value() }
	askPass := askpass.NewServer(filepath.Join(work, "askpass.sock"))
	go func() {
		if err := askPass.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "argocd-repo-driver: askpass:", err)
		}
	}()
	cache := reposervercache.NewCache(cacheutil.NewCache(cacheutil.NewInMemoryCache(24*time.Hour)), 24*time.Hour, 3*time.Minute, 10*time.Second)
	server, err := reposerver.NewServer(metrics.NewMetricsServer(), cache, nil, repository.RepoServerInitConstants{
		PauseGenerationAfterFailedGenerationAttempts: 3,
		PauseGenerationOnFailureForMinutes:           60,
		SubmoduleEnabled:                             true,
		MaxCombinedDirectoryManifestsSize:            resource.MustParse("10M"),
		StreamedManifestMaxExtractedSize:             quantity("1G"),
		StreamedManifestMaxTarSize:                   quantity("100M"),
		HelmManifestMaxExtractedSize:                 quantity("1G"),
		HelmRegistryMaxIndexSize:                     quantity("1G"),
		OCIManifestMaxExtractedSize:                  quantity("1G"),
		EnableBuiltinGitConfig:                       true,
		HelmChartCacheExpiration:                     24 * time.Hour,
	}, askPass, "", true)
	if err != nil {
		return nil, err
	}
	listener, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	grpcServer := server.CreateGRPC()
	go func() {
		if err := grpcServer.Serve(listener); err != nil {
			fmt.Fprintln(os.Stderr, "argocd-repo-driver: serve:", err)
			os.Exit(1)
		}
	}()
	_, client, err := apiclient.NewRepoServerClientset(listener.Addr().String(), 600, tls.Configuration{DisableTLS: true}).NewRepoServerClient()
	return client, err
}

// answer asks the repository service one request.
func answer(client apiclient.RepoServerServiceClient, req *request) *response {
	res := &response{ID: req.ID}
	repo := &v1alpha1.Repository{Repo: req.Repo}
	source := &v1alpha1.ApplicationSource{RepoURL: req.Repo, Path: req.Path, TargetRevision: req.Revision, Plugin: req.Plugin}
	ctx := context.Background()
	var err error
	switch req.Op {
	case "generate":
		q := &apiclient.ManifestRequest{Repo: repo, Revision: req.Revision, NoCache: req.NoCache, AppName: req.AppName,
			Namespace: req.Namespace, ProjectName: req.Project, ApplicationSource: source, KubeVersion: req.KubeVersion,
			ApiVersions: req.APIVersions, AppLabelKey: req.AppLabelKey, TrackingMethod: req.TrackingMethod}
		repeat := max(req.Repeat, 1)
		for range repeat {
			start := time.Now()
			var m *apiclient.ManifestResponse
			m, err = client.GenerateManifest(ctx, q)
			if req.Repeat > 0 {
				res.Nanos = append(res.Nanos, time.Since(start).Nanoseconds())
			}
			if err != nil {
				break
			}
			res.Manifests, res.Revision, res.SourceType = m.Manifests, m.Revision, m.SourceType
		}
	case "appDetails":
		var d *apiclient.RepoAppDetailsResponse
		d, err = client.GetAppDetails(ctx, &apiclient.RepoServerAppDetailsQuery{Repo: repo, Source: source, AppName: req.AppName, NoCache: req.NoCache})
		if err == nil {
			res.SourceType = d.Type
			if d.Plugin != nil {
				res.Parameters = d.Plugin.ParametersAnnouncement
			}
		}
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		st, _ := status.FromError(err)
		res.Error, res.Code = st.Message(), st.Code().String()
		res.Manifests = nil
	}
	return res
}
