#!/usr/bin/env bash
# Prints the semantic version (https://semver.org) of the checkout, as Kubernetes' own
# hack/lib/version.sh writes its components' versions, so that kubectl version and every
# client that parses /version read it:
#   v0.3.0                      a commit tagged v0.3.0
#   v0.3.0-5+84c76d1142ea4d     5 commits after v0.3.0 (the commit in the build metadata)
#   v0.0.0-master+84c76d1142ea4d no v* tag in the history (a fresh clone of main)
# and -dirty appended when the work tree has changes (git status, untracked files included).
# Outside a git checkout it prints v0.0.0-unknown.
set -o errexit
set -o nounset
set -o pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! commit=$(git rev-parse --short=14 HEAD 2>/dev/null); then
  echo v0.0.0-unknown
  exit 0
fi
if described=$(git describe --tags --match 'v[0-9]*' --abbrev=14 HEAD 2>/dev/null); then
  # v1.2.3[-pre]-N-gHASH: the distance and the commit after the tag.
  if [[ "${described}" =~ ^(.*)-([0-9]+)-g([0-9a-f]+)$ ]]; then
    base="${BASH_REMATCH[1]}" distance="${BASH_REMATCH[2]}" hash="${BASH_REMATCH[3]}"
    if [[ "${base}" == *-* ]]; then
      # A pre-release tag (v1.2.3-alpha.1): the distance extends it, as Kubernetes does.
      version="${base}.${distance}+${hash}"
    else
      version="${base}-${distance}+${hash}"
    fi
  else
    version="${described}"
  fi
else
  version="v0.0.0-master+${commit}"
fi
if [[ -n "$(git status --porcelain 2>/dev/null)" ]]; then
  version+="-dirty"
fi
echo "${version}"
