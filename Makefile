# Stencil: `make run` serves the API locally, `make test` runs every test.
SHELL := /bin/bash
GO        ?= go
OUTPUT    := _output
BIN       := $(OUTPUT)/bin
LOCAL_DIR := $(OUTPUT)/local
# Kustomize's Go plugin loader is never used: plugins are refused on the server.
GOTAGS    := kustomize_disable_go_plugin_support
GOFLAGS_TAGS := -tags $(GOTAGS)
# How long `make test` fuzzes each target; a longer hunt: make fuzz FUZZTIME=10m
FUZZTIME  ?= 15s
# Requests per load benchmark of the reliability suite (`make soak` sends more).
RELIABILITY_REQUESTS ?= 400
RELIABILITY_TIMEOUT  ?= 10m

.PHONY: all build run test verify unit integration reliability soak e2e fuzz e2e-binaries bench clean

all: build

build:
	$(GO) build $(GOFLAGS_TAGS) -o $(BIN)/stencil-apiserver ./cmd/stencil-apiserver
	$(GO) build $(GOFLAGS_TAGS) -o $(BIN)/stencil ./cmd/stencil
	ln -sf stencil $(BIN)/kubectl-stencil

## run: the server on https://127.0.0.1:8443 with embedded etcd; kubeconfig in _output/local/kubeconfig
run: build
	$(BIN)/stencil-apiserver --local --local-dir $(LOCAL_DIR)

## test: static checks, generated code, unit, integration, reliability, e2e against kube-apiserver, fuzzing
test: verify unit integration reliability e2e fuzz

verify:
	@unformatted=$$(gofmt -l cmd pkg hack test); if [ -n "$$unformatted" ]; then echo "gofmt: $$unformatted"; exit 1; fi
	$(GO) vet $(GOFLAGS_TAGS) ./...
	hack/verify-imports.sh
	hack/verify-codegen.sh

unit:
	$(GO) test $(GOFLAGS_TAGS) -race ./pkg/... ./cmd/...

integration:
	$(GO) test $(GOFLAGS_TAGS) ./test/integration/...

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

## e2e: etcd, kube-apiserver and kubectl v1.37.1 built from pinned modules (cached in _output/bin)
e2e: e2e-binaries
	$(GO) test $(GOFLAGS_TAGS) -count=1 -v ./test/e2e/... 2>&1 | grep -E -v '^\s*$$' | grep -E '^(=== RUN|--- |\s+\S+_test.go|ok|FAIL|PASS|e2e:|panic)' ; exit $${PIPESTATUS[0]}

fuzz:
	$(GO) test $(GOFLAGS_TAGS) -run '^$$' -fuzz '^FuzzProcess$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 200x ./pkg/process
	$(GO) test $(GOFLAGS_TAGS) -run '^$$' -fuzz '^FuzzCompact$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 200x ./pkg/process
	$(GO) test $(GOFLAGS_TAGS) -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 200x ./pkg/jsonbytes
	$(GO) test $(GOFLAGS_TAGS) -run '^$$' -fuzz '^FuzzExpand$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 200x ./pkg/transform/expand
	$(GO) test $(GOFLAGS_TAGS) -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 200x ./pkg/transform/remove

## bench: the benchmark suite beside its baselines, as one table of ratios (docs/performance.md)
bench:
	hack/bench.sh

clean:
	rm -rf $(OUTPUT)
