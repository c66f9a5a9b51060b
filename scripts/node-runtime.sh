#!/usr/bin/env bash
# Official Node.js binaries from the npm registry (the `node-linux-<arch>` packages that `npm install
# node@24` pulls in), cached under ~/.cache/hyphae/node-<version>; prints the folder holding `node`.
# Usage: bash scripts/node-runtime.sh [version]   (default: the Node 24 LTS release CI validates)
set -euo pipefail

version="${1:-24.22.3}"
cache="${HYPHAE_CACHE_DIR:-$HOME/.cache/hyphae}"
dir="$cache/node-$version"

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node-runtime: no npm node package for $(uname -m)" >&2; exit 1 ;;
esac

if [ "$("$dir/bin/node" --version 2>/dev/null || true)" != "v$version" ]; then
  echo "node-runtime: fetching node-linux-$arch@$version from the npm registry" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-$arch@$version" >/dev/null)
  mkdir -p "$work/unpacked" "$cache"
  tar -xzf "$work"/node-linux-"$arch"-*.tgz -C "$work/unpacked"
  chmod +x "$work/unpacked/package/bin/node"
  # Swap in whole, so an interrupted fetch never leaves a half-written runtime in the cache.
  rm -rf "$dir.partial" && mv "$work/unpacked/package" "$dir.partial"
  rm -rf "$dir" && mv "$dir.partial" "$dir"
fi

test "$("$dir/bin/node" --version)" = "v$version"
echo "$dir/bin"
