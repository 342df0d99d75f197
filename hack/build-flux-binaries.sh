#!/usr/bin/env bash
# Builds Flux's kustomize-controller (v1.9.6, pinned by hack/flux-tools) into _output/bin and
# takes the CRDs it needs into _output/flux-crds: its own Kustomization, and from
# source-controller v1.9.0 (the source API kustomize-controller v1.9.6 is built against) all
# four source kinds it watches: GitRepository, OCIRepository, Bucket and ExternalArtifact
# (without all four the controller never syncs its caches). Everything comes from the Go module
# proxy, verified by the checksums pinned here and in hack/flux-tools/go.sum. Once: a stamp
# records what was built, and a later run with the same pins does nothing.
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
BIN="${ROOT}/_output/bin"
CRDS="${ROOT}/_output/flux-crds"
TOOLS="${ROOT}/hack/flux-tools"
STAMP="${BIN}/.flux-binaries.stamp"
# The source-controller module holds the source CRDs (its api module holds only Go types). It
# is not a dependency of anything built here, so its checksum is pinned here rather than in
# go.sum; `go mod download` checks it against the checksum database as well.
SOURCE_CONTROLLER="github.com/fluxcd/source-controller@v1.9.0"
SOURCE_CONTROLLER_SUM="h1:5msg2yyjVYDULZos+2ve8MZzcSqTpusiXmrOeBhc9yY="
SOURCE_CRDS=(gitrepositories ocirepositories buckets externalartifacts)

want="$( (cat "${TOOLS}/go.mod" "${TOOLS}/go.sum"; echo "${SOURCE_CONTROLLER} ${SOURCE_CONTROLLER_SUM} ${SOURCE_CRDS[*]}") | sha256sum | cut -d' ' -f1)"
have_all() {
  [[ -x "${BIN}/kustomize-controller" && -f "${CRDS}/kustomize.toolkit.fluxcd.io_kustomizations.yaml" ]] || return 1
  for kind in "${SOURCE_CRDS[@]}"; do
    [[ -f "${CRDS}/source.toolkit.fluxcd.io_${kind}.yaml" ]] || return 1
  done
}
if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${want}" ]] && have_all; then
  exit 0
fi

mkdir -p "${BIN}" "${CRDS}"
cd "${TOOLS}"
echo "building kustomize-controller v1.9.6 into ${BIN} (the first time takes minutes)" >&2
# Flux's own build: a static binary without symbols (its Dockerfile's flags).
CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "${BIN}/kustomize-controller" github.com/fluxcd/kustomize-controller

# The Kustomization CRD from the module just built, as go.sum verified it.
controller_dir="$(go list -m -f '{{.Dir}}' github.com/fluxcd/kustomize-controller)"
install -m 0644 "${controller_dir}/config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml" "${CRDS}/"

# The source CRDs from source-controller's module, at its pinned checksum.
read -r source_dir source_sum < <(go mod download -json "${SOURCE_CONTROLLER}" |
  sed -n -e 's/^\t"Dir": "\(.*\)",$/\1/p' -e 's/^\t"Sum": "\(.*\)",$/\1/p' | paste -sd' ')
if [[ "${source_sum}" != "${SOURCE_CONTROLLER_SUM}" ]]; then
  echo "${SOURCE_CONTROLLER}: checksum ${source_sum}, want ${SOURCE_CONTROLLER_SUM}" >&2
  exit 1
fi
for kind in "${SOURCE_CRDS[@]}"; do
  install -m 0644 "${source_dir}/config/crd/bases/source.toolkit.fluxcd.io_${kind}.yaml" "${CRDS}/"
done
echo "${want}" > "${STAMP}"
