# Stencil: `make run` serves the API locally, `make test` runs every test.
GO        ?= go
OUTPUT    := _output
BIN       := $(OUTPUT)/bin
LOCAL_DIR := $(OUTPUT)/local
# How long `make test` fuzzes each target; longer runs: make fuzz FUZZTIME=10m
FUZZTIME  ?= 20s

.PHONY: all build run test verify unit integration fuzz clean

all: build

build:
	$(GO) build -o $(BIN)/stencil-apiserver ./cmd/stencil-apiserver
	$(GO) build -o $(BIN)/stencil ./cmd/stencil

## run: the server on https://127.0.0.1:8443 with embedded etcd; kubeconfig in _output/local/kubeconfig
run: build
	$(BIN)/stencil-apiserver --local --local-dir $(LOCAL_DIR)

## test: static checks, generated-code check, unit, integration and fuzz tests
test: verify unit integration fuzz

verify:
	@unformatted=$$(gofmt -l cmd pkg hack test); if [ -n "$$unformatted" ]; then echo "gofmt: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	hack/verify-codegen.sh

unit:
	$(GO) test -race ./pkg/... ./cmd/...

integration:
	$(GO) test ./test/integration/...

fuzz:
	@echo "no fuzz targets yet"

clean:
	rm -rf $(OUTPUT)
