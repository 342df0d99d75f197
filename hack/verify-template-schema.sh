#!/usr/bin/env bash
# Fails when artifacts/schema/template-v1alpha1.json or pkg/typecheck/kubeschemas/stencil.json.gz
# is not what hack/update-template-schema.sh makes from the served OpenAPI (after a change of
# the API types or of pkg/typecheck/kindschema).
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
FRESH="$(mktemp -t template-schema.XXXXXX)"
PACKED="$(mktemp -t template-packed.XXXXXX)"
trap 'rm -f "${FRESH}" "${PACKED}"' EXIT

"${ROOT}/hack/update-template-schema.sh" "${FRESH}" "${PACKED}"
if ! cmp -s "${FRESH}" "${ROOT}/artifacts/schema/template-v1alpha1.json"; then
  echo "artifacts/schema/template-v1alpha1.json is stale: run hack/update-template-schema.sh" >&2
  exit 1
fi
if ! cmp -s "${PACKED}" "${ROOT}/pkg/typecheck/kubeschemas/stencil.json.gz"; then
  echo "pkg/typecheck/kubeschemas/stencil.json.gz is stale: run hack/update-template-schema.sh" >&2
  exit 1
fi
echo "the Template's JSON Schema is up to date"
