#!/usr/bin/env bash
# Regenerates deepcopy, conversion, defaults, OpenAPI, clientset, listers, informers and
# applyconfigurations with k8s.io/code-generator at the version pinned in go.mod, and the
# member switch of the engine's lean parameter reader with hack/parameter-reader.
set -o errexit
set -o nounset
set -o pipefail

SCRIPT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "${SCRIPT_ROOT}"
# `go list -m` prints nothing for a module that is not in the module cache yet (a fresh
# machine), so download it first.
if [[ -z "${CODEGEN_PKG:-}" ]]; then
  go mod download k8s.io/code-generator
  CODEGEN_PKG="$(go list -m -f '{{.Dir}}' k8s.io/code-generator)"
fi
if [[ ! -f "${CODEGEN_PKG}/kube_codegen.sh" ]]; then
  echo "k8s.io/code-generator not found (CODEGEN_PKG=${CODEGEN_PKG})" >&2
  exit 1
fi
THIS_PKG="stencil.dev/stencil"
# kube_codegen.sh installs the generators into GOBIN; keep them inside the project.
export GOBIN="${SCRIPT_ROOT}/_output/codegen-bin"
mkdir -p "${GOBIN}"

# shellcheck disable=SC1091
source "${CODEGEN_PKG}/kube_codegen.sh"

kube::codegen::gen_helpers \
    --boilerplate "${SCRIPT_ROOT}/hack/boilerplate.go.txt" \
    "${SCRIPT_ROOT}/pkg/apis"

kube::codegen::gen_openapi \
    --output-dir "${SCRIPT_ROOT}/pkg/generated/openapi" \
    --output-pkg "${THIS_PKG}/pkg/generated/openapi" \
    --report-filename "${SCRIPT_ROOT}/hack/api-violations.list" \
    --update-report \
    --output-model-name-file "zz_generated.model_name.go" \
    --extra-pkgs k8s.io/apimachinery/pkg/util/intstr \
    --boilerplate "${SCRIPT_ROOT}/hack/boilerplate.go.txt" \
    "${SCRIPT_ROOT}/pkg/apis"

kube::codegen::gen_client \
    --with-watch \
    --with-applyconfig \
    --applyconfig-openapi-schema <(go run "${THIS_PKG}/hack/models-schema") \
    --output-dir "${SCRIPT_ROOT}/pkg/generated" \
    --output-pkg "${THIS_PKG}/pkg/generated" \
    --boilerplate "${SCRIPT_ROOT}/hack/boilerplate.go.txt" \
    "${SCRIPT_ROOT}/pkg/apis"

# The lean reader of a template's parameters (pkg/process) reads each member of the API's
# Parameter as its field's type says; its member switch is generated from that type.
go run "${THIS_PKG}/hack/parameter-reader" \
    --boilerplate "${SCRIPT_ROOT}/hack/boilerplate.go.txt" \
    -o "${SCRIPT_ROOT}/pkg/process/zz_generated.parameter_reader.go"

go run "${THIS_PKG}/hack/patch-meta" \
    --boilerplate "${SCRIPT_ROOT}/hack/boilerplate.go.txt" \
    -o "${SCRIPT_ROOT}/pkg/transform/builtin/zz_generated.patchmeta.go"
