#!/usr/bin/env bash
# Regenerates pkg/typecheck/kubeschemas/kubernetes.json.gz, the OpenAPI v3 schemas of the
# kinds kube-apiserver serves by default, from the k8s.io/kubernetes that hack/e2e-tools pins
# (the e2e cluster's): hack/e2e-tools/kubeschemas builds them as kube-apiserver builds its
# /openapi/v3, and hack/pack-kube-schemas keeps what the type check reads, gzipped. The first
# run compiles much of Kubernetes (minutes); later ones take seconds.
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
OUT="${1:-${ROOT}/pkg/typecheck/kubeschemas/kubernetes.json.gz}"
FULL="$(mktemp -t kube-openapi.XXXXXX)"
trap 'rm -f "${FULL}"' EXIT

(cd "${ROOT}/hack/e2e-tools" && go run ./kubeschemas > "${FULL}")
(cd "${ROOT}" && go run ./hack/pack-kube-schemas "${OUT}" < "${FULL}")
