#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests of the catalog UI (test/ui) when it is
# missing, so that `make ui` never skips them. Root installs with apt-get; anyone else is told
# what to run.
set -o errexit
set -o nounset
set -o pipefail

if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "chromium is missing: install Debian's chromium package (sudo apt-get install chromium) and rerun" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium >/dev/null
echo "installed $(chromium --version 2>/dev/null || echo chromium)"
