#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kubectl (k8s.io/kubernetes v1.37.1) and etcd (v3.7.0) from the pinned
# modules of hack/e2e-tools into _output/bin, once: a stamp records what was built, and a later
# run with the same pins does nothing. The first build takes about 12 minutes on 2 cores.
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
BIN="${ROOT}/_output/bin"
TOOLS="${ROOT}/hack/e2e-tools"
KUBE_VERSION="v1.37.1"
STAMP="${BIN}/.e2e-binaries.stamp"
want="$(cat "${TOOLS}/go.mod" "${TOOLS}/go.sum" "${TOOLS}/etcd/main.go" | sha256sum | cut -d' ' -f1)"

if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${want}" && -x "${BIN}/kube-apiserver" && -x "${BIN}/kube-controller-manager" && -x "${BIN}/kubectl" && -x "${BIN}/etcd" ]]; then
  exit 0
fi

mkdir -p "${BIN}"
cd "${TOOLS}"
echo "building kube-apiserver, kube-controller-manager and kubectl ${KUBE_VERSION} and etcd into ${BIN} (the first time takes minutes)" >&2
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${KUBE_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=${KUBE_VERSION}"
GOFLAGS=-mod=mod go build -trimpath -ldflags "${ldflags}" -o "${BIN}/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
GOFLAGS=-mod=mod go build -trimpath -ldflags "${ldflags}" -o "${BIN}/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager
GOFLAGS=-mod=mod go build -trimpath -ldflags "${ldflags}" -o "${BIN}/kubectl" k8s.io/kubernetes/cmd/kubectl
GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "${BIN}/etcd" ./etcd
echo "${want}" > "${STAMP}"
