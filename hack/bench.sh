#!/usr/bin/env bash
# Runs the benchmark suite, each measured path beside its baseline in the same run, and prints
# one table of ratios (hack/benchtable). The raw output stays in _output/bench/ for benchstat.
# BENCHTIME=1s hack/bench.sh for steadier numbers; the default keeps a run to a few minutes.
# The engine benchmarks run COUNT times (3 by default); hack/benchtable takes the median.
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "${ROOT}"
OUT="${ROOT}/_output/bench"
BENCHTIME="${BENCHTIME:-300ms}"
TAGS="-tags kustomize_disable_go_plugin_support"
mkdir -p "${OUT}"
raw="${OUT}/bench-$(date +%Y%m%d-%H%M%S).txt"
{
  go test ${TAGS} -run '^$' -bench 'FromBytes|Process' -benchmem -benchtime "${BENCHTIME}" -count "${COUNT:-3}" ./pkg/process/
  go test ${TAGS} -run '^$' -bench 'Pipeline|Krusty' -benchmem -benchtime 2x ./pkg/transform/
  go test ${TAGS} -run '^$' -bench 'PluginAnnotate|StarlarkRoutes' -benchmem -benchtime "${BENCHTIME}" ./pkg/transform/plugin/ ./pkg/transform/plugin/starlark/
  go test ${TAGS} -run '^$' -bench 'MemoryBudget' -benchmem -benchtime "${BENCHTIME}" ./pkg/registry/templates/renderrest/
  go test ${TAGS} -run '^$' -bench 'BenchmarkTemplateCreate' -benchmem -benchtime 200x ./pkg/registry/templates/template/
  go test ${TAGS} -run '^$' -bench 'BenchmarkPreview' -benchmem -benchtime 3x ./pkg/controller/preview/
  go test ${TAGS} -run '^$' -bench 'BenchmarkLint$' -benchmem -benchtime 5x ./pkg/lint/
  go test ${TAGS} -run '^$' -bench 'BenchmarkLintScaling' -benchmem -benchtime "${BENCHTIME}" -count "${COUNT:-3}" ./pkg/lint/
  go test ${TAGS} -run '^$' -bench 'BenchmarkProvenanceScaling' -benchmem -benchtime "${BENCHTIME}" -count "${COUNT:-3}" ./pkg/render/
  # Published renders: the artifact of 100 and 1,000 objects, and 100 renders of one template
  # that must all give one digest (the benchmark fails otherwise).
  go test ${TAGS} -run '^$' -bench 'BenchmarkBuild' -benchmem -benchtime 20x ./pkg/artifact/
  go test ${TAGS} -run '^$' -bench 'BenchmarkPublishRender' -benchmem -benchtime 100x ./pkg/controller/publish/
  go test ${TAGS} -run '^$' -bench 'ProcessedVsGet' -benchmem -benchtime 2s ./test/integration/
  go test ${TAGS} -run '^$' -bench 'WholeProcess' -benchtime 3x ./test/clibench/
  go test ${TAGS} -run '^$' -bench 'Startup' -benchtime 20x -count "${COUNT:-3}" ./test/clibench/
  # The shared corpus (../shared/testdata/openshift-corpus), each template through OpenShift's
  # own processor (library-go, decode+Process), the engine, the server's handler, a cached plan
  # and an encoding/json round trip, in one loop; a module of its own (library-go).
  (cd test/corpusbench && go test ${TAGS} -run '^$' -bench 'BenchmarkCorpus$' -benchtime 1x -count "${CORPUS_COUNT:-1}" .)
  go test ${TAGS} -run '^$' -bench 'BenchmarkRender$' -benchmem -benchtime "${BENCHTIME}" -count "${COUNT:-3}" ./pkg/gitops/
  hack/build-argocd-binaries.sh
  go test ${TAGS} -run '^$' -bench 'ArgoCD' -benchtime 40x ./test/argocd/
} | tee "${raw}"
echo
go run ./hack/benchtable < "${raw}" | tee "${OUT}/table.txt"
