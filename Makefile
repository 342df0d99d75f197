# Stencil: `make run` serves the API locally, `make test` runs every test.
SHELL := /bin/bash
GO        ?= go
OUTPUT    := _output
BIN       := $(OUTPUT)/bin
LOCAL_DIR := $(OUTPUT)/local
# Kustomize's Go plugin loader is never used: plugins are refused on the server.
GOTAGS    := kustomize_disable_go_plugin_support
GOFLAGS_TAGS := -tags $(GOTAGS)
# What --version and /version report: a semantic version made of `git describe`, as Kubernetes
# stamps its components (hack/version.sh: v0.3.0, v0.3.0-5+<commit>, v0.0.0-master+<commit>).
VERSION   ?= $(shell hack/version.sh)
GIT_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
GIT_TREE_STATE ?= $(shell if [ -n "$$(git status --porcelain 2>/dev/null)" ]; then echo dirty; else echo clean; fi)
# The commit's time, not the clock's, so that rebuilding a commit gives the same binary and image.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
BUILD_DATE := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
VERSION_PKG := stencil.dev/stencil/pkg/version
LDFLAGS   := -X $(VERSION_PKG).gitVersion=$(VERSION) -X $(VERSION_PKG).gitCommit=$(GIT_COMMIT) \
             -X $(VERSION_PKG).gitTreeState=$(GIT_TREE_STATE) -X $(VERSION_PKG).buildDate=$(BUILD_DATE)
# make run's port, and extra flags of stencil-apiserver (docs/operations.md lists them).
PORT      := 8443
ARGS      :=
IMAGE_DIR ?= $(OUTPUT)/image
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
# How much `make test` fuzzes each target: a count of inputs per target, about 15 s of a loaded
# CI core each (see fuzz:); a longer hunt: make fuzz FUZZTIME=10m
FUZZTIME  ?=
# How long one suite may run. A test binary's clock also counts the builds the suite makes
# itself (make image in test/release, the binaries of test/e2e), which take minutes on a
# fresh machine with an empty Go build cache; go test's default of 10 minutes is too short there.
SUITE_TIMEOUT ?= 40m
# Requests per load benchmark of the reliability suite (`make soak` sends more).
RELIABILITY_REQUESTS ?= 400
RELIABILITY_TIMEOUT  ?= 10m

.PHONY: all build image run test verify unit corpus integration tour clients ui release reliability soak e2e argocd argocd-binaries fuzz e2e-binaries flux-binaries bench bench-instances bench-flux clean

all: build

build:
	$(GO) build $(GOFLAGS_TAGS) -ldflags "$(LDFLAGS)" -o $(BIN)/stencil-apiserver ./cmd/stencil-apiserver
	$(GO) build $(GOFLAGS_TAGS) -ldflags "$(LDFLAGS)" -o $(BIN)/stencil ./cmd/stencil
	ln -sf stencil $(BIN)/kubectl-stencil

## image: an OCI layout and a docker archive of stencil-apiserver (with the stencil CLI, which the Argo CD plugin's sidecar runs) in _output/image; no daemon, no base image
image:
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build $(GOFLAGS_TAGS) -trimpath -ldflags "-s -w $(LDFLAGS)" \
		-o $(IMAGE_DIR)/stencil-apiserver ./cmd/stencil-apiserver
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build $(GOFLAGS_TAGS) -trimpath -ldflags "-s -w $(LDFLAGS)" \
		-o $(IMAGE_DIR)/stencil ./cmd/stencil
	cd hack/image && $(GO) run . --binary $(abspath $(IMAGE_DIR))/stencil-apiserver --cli $(abspath $(IMAGE_DIR))/stencil --output $(abspath $(IMAGE_DIR)) \
		--version $(VERSION) --revision $(GIT_COMMIT) --arch $(IMAGE_ARCH) --created $(SOURCE_DATE_EPOCH)

## run: the server on https://127.0.0.1:8443 (PORT) with embedded etcd; kubeconfig in _output/local/kubeconfig.
## More server flags in ARGS: make run ARGS="--openshift-templates --target-kubeconfig ~/.kube/config"
run: build
	$(BIN)/stencil-apiserver --local --local-dir $(LOCAL_DIR) --secure-port $(PORT) $(ARGS)

## test: static checks, generated code, unit, the OpenShift corpus, integration, the README's tour, clients nobody here wrote, the catalog UI in a browser, release, reliability, e2e against kube-apiserver, fuzzing
test: verify unit corpus integration tour clients ui release reliability e2e argocd fuzz

verify:
	@unformatted=$$(gofmt -l cmd pkg hack test); if [ -n "$$unformatted" ]; then echo "gofmt: $$unformatted"; exit 1; fi
	$(GO) vet $(GOFLAGS_TAGS) ./...
	cd hack/image && $(GO) vet ./...
	hack/verify-imports.sh
	hack/verify-codegen.sh
	hack/verify-template-schema.sh

# The corpus tests run in their own target, without the race detector: each is one goroutine
# over the corpus (394 templates processed four ways; 861 files read twice), which -race slows
# tenfold for nothing.
unit:
	$(GO) test $(GOFLAGS_TAGS) -race -skip '^(TestOpenShiftCorpus|TestRenderFileCorpus|TestReaderCorpus|TestTreeCorpus|TestReaderFallbacks)$$' ./pkg/... ./cmd/...

## corpus: 394 real OpenShift templates give OpenShift's own output (through the CLI's engine, the server's handler and a cached plan; test/corpusbench also runs OpenShift's library-go on each), and every JSON and YAML file of the corpus and the repository reads as sigs.k8s.io/yaml reads it (../shared/testdata/openshift-corpus)
corpus:
	$(GO) test $(GOFLAGS_TAGS) -count=1 -run '^(TestOpenShiftCorpus|TestRenderFileCorpus)$$' ./pkg/cmd/cli
	set -o pipefail; $(GO) test $(GOFLAGS_TAGS) -count=1 -run '^(TestReaderCorpus|TestTreeCorpus|TestReaderFallbacks)$$' -v ./pkg/positions | grep -E '^(---|ok|FAIL)|differences|agree|that it reads'
	cd test/corpusbench && $(GO) test $(GOFLAGS_TAGS) -count=1 -run '^TestPathsGiveOpenShiftsItems$$' .

integration:
	$(GO) test $(GOFLAGS_TAGS) -timeout $(SUITE_TIMEOUT) ./test/integration/...

## tour: the README's shell blocks as written, against make run's server, with the real kubectl of e2e-binaries
tour: build e2e-binaries
	$(GO) test $(GOFLAGS_TAGS) -count=1 -timeout $(SUITE_TIMEOUT) ./test/readme/...

## clients: Python's dynamic client, Ruby's kubeclient, the JavaScript client, swagger-parser and ajv against a local server (installed by hack/install-client-tools.sh)
clients:
	hack/install-client-tools.sh
	$(GO) test $(GOFLAGS_TAGS) -count=1 -v -timeout $(SUITE_TIMEOUT) ./test/clients/... 2>&1 | grep -E '^(=== RUN|--- |\s+\S+_test.go|ok|FAIL|PASS|panic)'; exit $${PIPESTATUS[0]}

## ui: `stencil ui` driven by headless Chromium (installed by hack/install-chromium.sh when missing); screenshots in _output/ui-screenshots
ui:
	hack/install-chromium.sh
	$(GO) test $(GOFLAGS_TAGS) -count=1 -v -timeout $(SUITE_TIMEOUT) ./test/ui/... 2>&1 | grep -E '^(=== RUN|--- |\s+\S+_test.go|ok|FAIL|PASS|panic)'; exit $${PIPESTATUS[0]}

## release: what make build and make image produce (version stamp, kubectl version against the server, static binary, image config)
release: e2e-binaries
	$(GO) test $(GOFLAGS_TAGS) -timeout $(SUITE_TIMEOUT) ./test/release/...

## reliability: load (16 and 64 clients), kill -9 under creates, etcd paused; the figures are in its output
reliability:
	$(GO) test $(GOFLAGS_TAGS) -count=1 -v -timeout $(RELIABILITY_TIMEOUT) -bench . -benchtime $(RELIABILITY_REQUESTS)x ./test/reliability/... 2>&1 \
	  | grep -E '^(--- |ok|FAIL|PASS|Benchmark\S+\s+[0-9]|\s+\S+_test.go|panic)'; exit $${PIPESTATUS[0]}

## soak: the reliability suite at a bigger setting: more requests, kill rounds and etcd pauses
soak:
	STENCIL_RELIABILITY_KILL_ROUNDS=10 STENCIL_RELIABILITY_ACKS_PER_ROUND=2000 \
	STENCIL_RELIABILITY_PAUSE_ROUNDS=5 STENCIL_RELIABILITY_PAUSE_SECONDS=10 \
	  $(MAKE) reliability RELIABILITY_REQUESTS=10000 RELIABILITY_TIMEOUT=60m

e2e-binaries:
	hack/build-e2e-binaries.sh
	hack/build-helm-tools.sh

## flux-binaries: Flux's kustomize-controller v1.9.6 (cached in _output/bin) and the CRDs it needs (_output/flux-crds)
flux-binaries:
	hack/build-flux-binaries.sh

## e2e: etcd, kube-apiserver, kube-controller-manager and kubectl v1.37.1, the Helm v4 library's driver and Flux's kustomize-controller, built from pinned modules (cached in _output/bin)
e2e: e2e-binaries flux-binaries
	hack/install-chromium.sh
	$(GO) test $(GOFLAGS_TAGS) -count=1 -v -timeout $(SUITE_TIMEOUT) ./test/e2e/... 2>&1 | grep -E -v '^\s*$$' | grep -E '^(=== RUN|--- |\s+\S+_test.go|ok|FAIL|PASS|e2e:|panic)' ; exit $${PIPESTATUS[0]}

argocd-binaries:
	hack/build-argocd-binaries.sh

## argocd: the Argo CD plugin proven by Argo CD v3.6.2's own argocd-cmp-server and repository service (built from hack/argocd-tools, cached in _output/bin)
argocd: argocd-binaries
	$(GO) test $(GOFLAGS_TAGS) -count=1 -v -timeout $(SUITE_TIMEOUT) ./test/argocd/... 2>&1 | grep -E '^(=== RUN|--- |\s+\S+_test.go|ok|FAIL|PASS|argocd:|panic)'; exit $${PIPESTATUS[0]}

# Each target runs for a count of inputs, not a duration: Go 1.26's fuzzing coordinator can fail
# a target with "context deadline exceeded" as a -fuzztime duration ends (golang/go#75804, fixed
# in Go 1.27), which a loaded CI machine hits; a count has no deadline to race. The counts are
# what a loaded core ran of each in 15 s.
fuzz_target = $(GO) test $(GOFLAGS_TAGS) -run '^$$' -fuzz '^$(1)$$' -fuzztime $(or $(FUZZTIME),$(2)) -fuzzminimizetime 200x $(3)
fuzz:
	$(call fuzz_target,FuzzProcess,20000x,./pkg/process)
	$(call fuzz_target,FuzzCompact,30000x,./pkg/process)
	$(call fuzz_target,FuzzLean,25000x,./pkg/process)
	$(call fuzz_target,FuzzObjectNumbersFit,40000x,./pkg/process)
	$(call fuzz_target,FuzzSplitTop,20000x,./pkg/process)
	$(call fuzz_target,FuzzDecode,300000x,./pkg/jsonbytes)
	$(call fuzz_target,FuzzYAMLToJSON,80000x,./pkg/positions)
	$(call fuzz_target,FuzzOnlyDocument,50000x,./pkg/positions)
	$(call fuzz_target,FuzzTreeLookup,250000x,./pkg/positions)
	$(call fuzz_target,FuzzToYAML,400000x,./pkg/jsonbytes)
	$(call fuzz_target,FuzzIndent,200000x,./pkg/jsonbytes)
	$(call fuzz_target,FuzzExpand,30000x,./pkg/transform/expand)
	$(call fuzz_target,FuzzParse,120000x,./pkg/transform/remove)
	$(call fuzz_target,FuzzMayHoldUnfitNumber,200000x,./pkg/apis/templates)
	$(call fuzz_target,FuzzHoldsExpansionName,40000x,./pkg/render)

## bench: the benchmark suite beside its baselines, as one table of ratios (docs/performance.md)
bench: build e2e-binaries
	hack/bench.sh

## bench-flux: published TemplateInstances applied by Flux's kustomize-controller on the e2e cluster (first apply, update) beside Flux's own figure (docs/performance.md)
bench-flux: e2e-binaries flux-binaries
	$(GO) test $(GOFLAGS_TAGS) -count=1 -run '^$$' -bench BenchmarkFluxDelivery -benchtime 1x -timeout 20m ./test/e2e/

## bench-instances: 1,000 TemplateInstances through the e2e cluster: cold, resync, a revision that renders the same, preview, rollout in waves, undo (docs/instances.md)
bench-instances: e2e-binaries
	$(GO) test $(GOFLAGS_TAGS) -count=1 -run '^$$' -bench BenchmarkTemplateInstances -benchtime 1x -timeout 20m ./test/e2e/

clean:
	rm -rf $(OUTPUT)
