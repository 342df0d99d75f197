#!/usr/bin/env bash
# Builds Argo CD's argocd-cmp-server and argocd-repo-driver (Argo CD's repository service and its
# gRPC client, test/argocd's driver) from the pinned module of hack/argocd-tools
# (github.com/argoproj/argo-cd/v3 v3.6.2, from the Go module proxy) into _output/bin, once: a stamp
# records what was built, and a later run with the same pins does nothing. Argo CD v3.6 needs Go
# 1.27: the go command fetches that toolchain from the proxy (GOTOOLCHAIN below). The first
# build takes a few minutes on 2 cores. Argo CD's install manifest of that version is copied
# beside them, into _output/argocd.
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
BIN="${ROOT}/_output/bin"
TOOLS="${ROOT}/hack/argocd-tools"
ARGOCD_VERSION="v3.6.2"
export GOTOOLCHAIN="go1.27.3"
STAMP="${BIN}/.argocd-binaries.stamp"
want="$(cat "${TOOLS}/go.mod" "${TOOLS}/go.sum" "${TOOLS}"/*/main.go | sha256sum | cut -d' ' -f1)"

MANIFESTS="${ROOT}/_output/argocd"
if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${want}" && -x "${BIN}/argocd-cmp-server" && -x "${BIN}/argocd-repo-driver" && -f "${MANIFESTS}/install.yaml" ]]; then
  exit 0
fi

mkdir -p "${BIN}"
cd "${TOOLS}"
echo "building argocd-cmp-server and argocd-repo-driver (Argo CD ${ARGOCD_VERSION}) into ${BIN} (the first time takes minutes)" >&2
# Argo CD's release builds are static (CGO off) and stamped with their version, as here.
ldflags="-s -w -X github.com/argoproj/argo-cd/v3/common.version=${ARGOCD_VERSION#v} -X github.com/argoproj/argo-cd/v3/common.gitTreeState=clean"
CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "${ldflags}" -o "${BIN}/argocd-cmp-server" ./argocd-cmp-server
CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "${ldflags}" -o "${BIN}/argocd-repo-driver" ./argocd-repo-driver
# Argo CD's own install manifest of the same version, which test/argocd patches with
# artifacts/argocd as a stock installation is patched.
mkdir -p "${MANIFESTS}"
cp "$(GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' github.com/argoproj/argo-cd/v3)/manifests/install.yaml" "${MANIFESTS}/install.yaml"
chmod 0644 "${MANIFESTS}/install.yaml"
echo "${want}" > "${STAMP}"
