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

package server

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"

	"stencil.dev/stencil/pkg/netutil"
)

// embeddedEtcd is an etcd member running inside the server process, listening on loopback
// ports chosen free at start.
type embeddedEtcd struct {
	config   *embed.Config
	server   *embed.Etcd
	stopping atomic.Bool
}

// newEmbeddedEtcd prepares the member with its data in dataDir; its ports are never
// serverPort, the server's own, which is not yet bound when they are chosen.
func newEmbeddedEtcd(dataDir string, tls etcdTLS, serverPort int) (*embeddedEtcd, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	ports, err := etcdPorts(serverPort, netutil.FreeLoopbackPorts)
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Name = "stencil-local"
	cfg.Dir = dataDir
	clientURL := url.URL{Scheme: "https", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))}
	peerURL := url.URL{Scheme: "https", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))}
	// Loopback is open to every user of the machine: etcd lets in only client certificates
	// of its own CA, for clients and peers alike.
	cfg.ClientTLSInfo = transport.TLSInfo{CertFile: tls.serverCert, KeyFile: tls.serverKey, TrustedCAFile: tls.ca, ClientCertAuth: true}
	cfg.PeerTLSInfo = transport.TLSInfo{CertFile: tls.serverCert, KeyFile: tls.serverKey, TrustedCAFile: tls.ca, ClientCertAuth: true}
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e := &embeddedEtcd{config: cfg}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.New(&quietOnStop{
		Core:     zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.Lock(os.Stderr), zapcore.ErrorLevel),
		stopping: &e.stopping,
	}))
	return e, nil
}

// quietOnStop logs etcd's errors, except while it is being stopped: then its listeners report
// their own closing as errors, which would alarm whoever pressed Ctrl-C.
type quietOnStop struct {
	zapcore.Core
	stopping *atomic.Bool
}

func (q *quietOnStop) Check(entry zapcore.Entry, checked *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if q.stopping.Load() {
		return checked
	}
	return q.Core.Check(entry, checked)
}

func (q *quietOnStop) With(fields []zapcore.Field) zapcore.Core {
	return &quietOnStop{Core: q.Core.With(fields), stopping: q.stopping}
}

func (e *embeddedEtcd) clientURL() string { return e.config.ListenClientUrls[0].String() }

func (e *embeddedEtcd) start(ctx context.Context) error {
	server, err := embed.StartEtcd(e.config)
	if err != nil {
		return fmt.Errorf("starting embedded etcd in %s: %w", e.config.Dir, err)
	}
	select {
	case <-server.Server.ReadyNotify():
	case err := <-server.Err():
		server.Close()
		return fmt.Errorf("embedded etcd failed: %w", err)
	case <-time.After(time.Minute):
		server.Close()
		return fmt.Errorf("embedded etcd in %s did not become ready within a minute", e.config.Dir)
	case <-ctx.Done():
		server.Close()
		return ctx.Err()
	}
	e.server = server
	klog.Infof("embedded etcd serving on %s with data in %s", e.clientURL(), e.config.Dir)
	return nil
}

func (e *embeddedEtcd) stop() {
	e.stopping.Store(true)
	if e.server != nil {
		e.server.Close()
	}
}

// etcdPorts chooses the member's client and peer ports with free, never avoid: a port chosen
// free is free only until someone binds it, and the server binds its own (often chosen free
// by whoever started it, as the tests do) only after etcd has started. A member that took it
// made the server fail with "address already in use".
func etcdPorts(avoid int, free func(n int) ([]int, error)) ([]int, error) {
	for range 10 {
		ports, err := free(2)
		if err != nil {
			return nil, err
		}
		if ports[0] != avoid && ports[1] != avoid {
			return ports, nil
		}
	}
	return nil, fmt.Errorf("no free loopback ports for etcd besides the server's %d", avoid)
}
