#!/usr/bin/env bash
# Fails when pkg/typecheck/kubeschemas/kubernetes.json.gz is not what
# hack/update-kube-schemas.sh makes from the pinned Kubernetes. (The e2e suite checks it
# against the running kube-apiserver too: TestKubeSchemasMatchCluster.)
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
FRESH="$(mktemp -t kube-schemas.XXXXXX)"
trap 'rm -f "${FRESH}"' EXIT

"${ROOT}/hack/update-kube-schemas.sh" "${FRESH}"
if ! cmp -s "${FRESH}" "${ROOT}/pkg/typecheck/kubeschemas/kubernetes.json.gz"; then
  echo "pkg/typecheck/kubeschemas/kubernetes.json.gz is stale: run hack/update-kube-schemas.sh" >&2
  exit 1
fi
echo "kube schemas are up to date"
