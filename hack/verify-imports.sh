#!/usr/bin/env bash
# Fails when a package of ours depends on a layer above its own. The arrows point down only:
#
#   cmd -> pkg/cmd -> pkg/apiserver, pkg/ui -> pkg/controller -> pkg/registry, pkg/lint (stencil lint: the store's checks)
#       -> pkg/render (glue), pkg/export (stencil export), pkg/typecheck (objects against their kinds' schemas),
#          pkg/adopt (taking over what Helm or kubectl manages: records, plans, field ownership),
#          pkg/gitops (render files, as GitOps tools render them)
#       -> the transformers, from the top (docs/architecture.md draws them):
#            pkg/transform/plugin (the namespace's plugin policy)
#         -> pkg/transform/plugin/starlark, pkg/transform/plugin/exec (the plugin runtimes)
#         -> pkg/transform/builtin, /generator, /kustomize, /expand (the steps, each registered explicitly)
#         -> pkg/transform/filters (what the steps share)
#         -> pkg/transform (the core: pipeline, registry, composition, limits, config decoding)
#       -> pkg/process (engine), pkg/transform/remove (removal paths) -> pkg/apis
#
# A package may skip layers downwards and use its own layer; pkg/apis uses nothing of ours
# outside pkg/apis. pkg/jsonbytes, pkg/bytepool, pkg/positions, pkg/provenance, pkg/netutil, pkg/certs, pkg/sandbox, pkg/artifact,
# pkg/redact (what is secret, and masking) and pkg/authz (asking the authorizer) are leaf utilities that every
# layer but pkg/apis may use. Layers are matched by path prefix, the longest first, so a
# subpackage belongs to its parent's layer unless it has one of its own. Packages in no layer
# (generated code, the client, hack tools) are checked only through the layered packages that
# use them: the check reads every package's transitive dependencies (go list -deps), not only
# its direct imports. The test-support packages (transformtest, exectest, instancetest, heaptest) are above every layer:
# only tests may import them.
#
# Besides, only the plugin runtimes (pkg/transform/plugin/exec and /starlark) and the binaries
# (cmd/, which call sandbox.RunShimIfRequested first thing) may import pkg/sandbox directly.
set -o errexit
set -o nounset
set -o pipefail

SCRIPT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "${SCRIPT_ROOT}"
GO="${GO:-go}"
TAGS="kustomize_disable_go_plugin_support"
MODULE="$("${GO}" list -m)"

# One line per package: its path, then every package it depends on, directly or not.
DEPS="$("${GO}" list -tags "${TAGS}" -f '{{.ImportPath}}{{range .Deps}} {{.}}{{end}}' ./...)"
awk -v module="${MODULE}/" '
  function under(p, prefix) { return p == prefix || index(p, prefix "/") == 1 }
  # layer maps a package path of the module to its rank; -1 is no layer.
  function layer(p) {
    if (under(p, "pkg/transform/transformtest") || under(p, "pkg/transform/plugin/exec/exectest") || under(p, "pkg/controller/instance/instancetest") || under(p, "pkg/heaptest")) return 15
    if (under(p, "pkg/apis")) return 0
    if (under(p, "pkg/jsonbytes") || under(p, "pkg/bytepool") || under(p, "pkg/positions") || under(p, "pkg/provenance") || under(p, "pkg/netutil") || under(p, "pkg/certs") || under(p, "pkg/sandbox") || under(p, "pkg/artifact") || under(p, "pkg/redact") || under(p, "pkg/authz")) return 1
    if (under(p, "pkg/process") || under(p, "pkg/transform/remove")) return 2
    if (under(p, "pkg/transform/plugin/starlark") || under(p, "pkg/transform/plugin/exec")) return 6
    if (under(p, "pkg/transform/plugin")) return 7
    if (under(p, "pkg/transform/builtin") || under(p, "pkg/transform/generator") || under(p, "pkg/transform/kustomize") || under(p, "pkg/transform/expand")) return 5
    if (under(p, "pkg/transform/filters")) return 4
    if (under(p, "pkg/transform")) return 3
    if (under(p, "pkg/render") || under(p, "pkg/export") || under(p, "pkg/typecheck") || under(p, "pkg/adopt") || under(p, "pkg/gitops")) return 8
    # The options of processing are shared by the server and the CLI: above pkg/render, below
    # everything of the server, so the CLI links none of it through them.
    if (under(p, "pkg/cmd/options")) return 8.5
    if (under(p, "pkg/registry") || under(p, "pkg/lint")) return 9
    if (under(p, "pkg/controller")) return 10
    if (under(p, "pkg/apiserver") || under(p, "pkg/ui")) return 11
    if (under(p, "pkg/cmd")) return 12
    if (under(p, "cmd")) return 13
    return -1
  }
  function name(r) { return r == 8.5 ? "pkg/cmd/options" : names[r + 1] }
  BEGIN {
    split("pkg/apis,leaf utilities,engine and removal paths,transformer core,transformer filters,transformer steps,plugin runtimes,plugin policy,pkg/render pkg/export pkg/typecheck pkg/adopt and pkg/gitops,pkg/registry and pkg/lint,pkg/controller,pkg/apiserver and pkg/ui,pkg/cmd,cmd,,test support", names, ",")
    bad = 0
  }
  {
    if (index($1, module) != 1) next
    pkg = substr($1, length(module) + 1)
    rank = layer(pkg)
    if (rank < 0) next
    for (i = 2; i <= NF; i++) {
      if (index($i, module) != 1) continue
      dep = substr($i, length(module) + 1)
      d = layer(dep)
      if (d > rank || (rank == 0 && d != 0)) {
        printf "%s (%s) depends on %s (%s)\n", pkg, name(rank), dep, (d < 0 ? "in no layer" : name(d))
        bad = 1
      }
    }
  }
  END { exit bad }
' <<<"${DEPS}" || {
  echo "an import points up the layers: see hack/verify-imports.sh for the arrows" >&2
  exit 1
}

# Direct imports of pkg/sandbox, test files left out (a test binary that runs plugins calls
# sandbox.RunShimIfRequested from its TestMain).
IMPORTS="$("${GO}" list -tags "${TAGS}" -f '{{.ImportPath}}{{range .Imports}} {{.}}{{end}}' ./...)"
awk -v module="${MODULE}/" '
  {
    pkg = substr($1, length(module) + 1)
    if (pkg == "pkg/transform/plugin/exec" || pkg == "pkg/transform/plugin/starlark" || index(pkg, "cmd/") == 1) next
    for (i = 2; i <= NF; i++) {
      if ($i == module "pkg/sandbox") {
        printf "%s imports pkg/sandbox: only the plugin runtimes and the binaries may\n", pkg
        bad = 1
      }
    }
  }
  END { exit bad }
' <<<"${IMPORTS}" || exit 1

# The CLI starts once per render when a GitOps tool runs it as a plugin, so what it links is
# paid for at every start: client-go's kubernetes/scheme registers every Kubernetes API type
# when the program starts (about 10M instructions and 5 MiB of peak memory of `stencil
# version`, docs/performance.md), and the generated clientset, client-go's discovery and
# typed clients, and cli-runtime's flags and resource builder all link it. The CLI reaches
# the API through pkg/client and its own ConfigFlags instead; the engine builds the kinds it
# patches on first use (pkg/transform/builtin/kinds.go).
CLI_DEPS="$("${GO}" list -tags "${TAGS}" -deps ./cmd/stencil)"
for forbidden in k8s.io/client-go/kubernetes/scheme k8s.io/client-go/discovery "${MODULE}/pkg/generated/clientset/versioned" k8s.io/cli-runtime/pkg/genericclioptions; do
  if grep -qx "${forbidden}" <<<"${CLI_DEPS}"; then
    echo "./cmd/stencil links ${forbidden}: the CLI must not (its start-up pays for it; see hack/verify-imports.sh)" >&2
    echo "find the importer: go list -deps -f '{{.ImportPath}} {{.Imports}}' ./cmd/stencil | grep ${forbidden}" >&2
    exit 1
  fi
done
echo "imports point down the layers"
