#!/usr/bin/env bash
# Installs the clients that nobody here wrote, for test/clients (`make clients`): Debian's
# python3-kubernetes (Python's dynamic client, which Ansible's k8s module uses) and
# ruby-kubeclient, and from npm, at the versions pinned in test/clients/node/package-lock.json,
# Kubernetes' JavaScript client, swagger-parser and ajv into _output/clients/node. Each step is
# skipped when already done, so that a second run costs nothing; root installs Debian's
# packages, anyone else is told what to run.
set -o errexit
set -o nounset
set -o pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

# Debian's packages install for Debian's python3 and ruby, not for one on PATH before them.
missing=()
/usr/bin/python3 -c 'import kubernetes.dynamic' >/dev/null 2>&1 || missing+=(python3-kubernetes)
/usr/bin/ruby -e 'require "kubeclient"' >/dev/null 2>&1 || missing+=(ruby-kubeclient)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing: ${missing[*]}: install Debian's packages (sudo apt-get install ${missing[*]}) and rerun" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "installed ${missing[*]}"
fi

# npm ci installs exactly the lock; it runs again only when the lock changed since the last
# install that finished (the stamp is written last).
node_dir="$root/_output/clients/node"
lock="$root/test/clients/node/package-lock.json"
if ! cmp -s "$lock" "$node_dir/installed-lock.json"; then
  command -v npm >/dev/null || { echo "npm is missing: install Node.js and npm" >&2; exit 1; }
  rm -rf "$node_dir"
  mkdir -p "$node_dir"
  cp "$root/test/clients/node/package.json" "$lock" "$node_dir/"
  (cd "$node_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$lock" "$node_dir/installed-lock.json"
  echo "installed $(cd "$node_dir" && npm ls --depth=0 --parseable 2>/dev/null | tail -n +2 | xargs -n1 basename | tr '\n' ' ')into $node_dir"
fi
