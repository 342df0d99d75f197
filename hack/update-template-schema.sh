#!/usr/bin/env bash
# Regenerates artifacts/schema/template-v1alpha1.json, the JSON Schema of the Template kind
# for YAML language servers and validators, from the OpenAPI v3 schemas stencil-apiserver
# serves (hack/template-schema builds them with the server's own configuration).
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
OUT="${1:-${ROOT}/artifacts/schema/template-v1alpha1.json}"
cd "${ROOT}"
go run -tags kustomize_disable_go_plugin_support ./hack/template-schema "${OUT}"
