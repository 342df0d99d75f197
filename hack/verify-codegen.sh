#!/usr/bin/env bash
# Fails when the generated code in pkg/ (or the API violation report) is stale: it regenerates
# into the tree and compares with a copy taken first, then puts the copy back.
set -o errexit
set -o nounset
set -o pipefail

SCRIPT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
SAVED="$(mktemp -d -t verify-codegen.XXXXXX)"
cleanup() { rm -rf "${SAVED}"; }
trap cleanup EXIT

cp -a "${SCRIPT_ROOT}/pkg" "${SAVED}/pkg"
cp -a "${SCRIPT_ROOT}/hack/api-violations.list" "${SAVED}/api-violations.list"
"${SCRIPT_ROOT}/hack/update-codegen.sh" >/dev/null

ret=0
diff -Naupr "${SAVED}/pkg" "${SCRIPT_ROOT}/pkg" || ret=$?
diff -Nau "${SAVED}/api-violations.list" "${SCRIPT_ROOT}/hack/api-violations.list" || ret=$?
if [[ ${ret} -ne 0 ]]; then
  rm -rf "${SCRIPT_ROOT}/pkg" && cp -a "${SAVED}/pkg" "${SCRIPT_ROOT}/pkg"
  cp -a "${SAVED}/api-violations.list" "${SCRIPT_ROOT}/hack/api-violations.list"
  echo "generated code is stale: run hack/update-codegen.sh" >&2
  exit 1
fi
echo "generated code is up to date"
