#!/usr/bin/env bash
# Builds helm-driver (the Helm v4 library, helm.sh/helm/v4 v4.3.2, as the helm CLI drives it)
# from the pinned module hack/helm-tools into _output/bin, once: a stamp records what was
# built, and a later run with the same pins and sources does nothing. The product's go.mod
# never imports Helm; only the e2e tests of adoption run this program.
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
BIN="${ROOT}/_output/bin"
TOOLS="${ROOT}/hack/helm-tools"
STAMP="${BIN}/.helm-tools.stamp"
want="$(cat "${TOOLS}/go.mod" "${TOOLS}/go.sum" "${TOOLS}"/helm-driver/*.go | sha256sum | cut -d' ' -f1)"

if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${want}" && -x "${BIN}/helm-driver" ]]; then
  exit 0
fi

mkdir -p "${BIN}"
cd "${TOOLS}"
echo "building helm-driver (helm.sh/helm/v4 v4.3.2) into ${BIN} (the first time takes minutes)" >&2
GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "${BIN}/helm-driver" ./helm-driver
echo "${want}" > "${STAMP}"
