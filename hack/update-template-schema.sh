#!/usr/bin/env bash
# Regenerates artifacts/schema/template-v1alpha1.json, the JSON Schema of the Template kind
# for YAML language servers and validators, from the OpenAPI v3 schemas stencil-apiserver
# serves (hack/template-schema builds them with the server's own configuration), and
# pkg/typecheck/kubeschemas/stencil.json.gz, the same schemas (and OpenShift's Template's) as
# stencil lint reads them to check a template file's own fields.
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
OUT="${1:-${ROOT}/artifacts/schema/template-v1alpha1.json}"
PACKED="${2:-${ROOT}/pkg/typecheck/kubeschemas/stencil.json.gz}"
cd "${ROOT}"
go run -tags kustomize_disable_go_plugin_support ./hack/template-schema "${OUT}" "${PACKED}"
