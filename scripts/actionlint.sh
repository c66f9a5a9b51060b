#!/usr/bin/env bash
# Build actionlint (the GitHub Actions workflow linter) from its Go module through the Go module
# proxy, once, into a cache folder; a matching stamp makes the script a no-op. test/release runs it
# on .github/workflows.
#
# Usage: scripts/actionlint.sh            # prints the folder holding `actionlint` on success
set -euo pipefail

# renovate: datasource=go depName=github.com/rhysd/actionlint
ACTIONLINT_VERSION="v1.7.12"
OUT="$HOME/.cache/hyphae/actionlint-${ACTIONLINT_VERSION}"
STAMP="${OUT}/.stamp"

if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${ACTIONLINT_VERSION}" && -x "${OUT}/actionlint" ]]; then
  echo "${OUT}"
  exit 0
fi

command -v go >/dev/null 2>&1 || { echo "actionlint: go is required to build it" >&2; exit 1; }
mkdir -p "${OUT}"
echo "actionlint: $(date -u +%H:%M:%S) building actionlint ${ACTIONLINT_VERSION}" >&2
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT
(
  cd "${WORK}"
  GOBIN="${WORK}/bin" CGO_ENABLED=0 go install -trimpath \
    -ldflags "-s -w -X github.com/rhysd/actionlint.version=${ACTIONLINT_VERSION}" \
    "github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}"
)
mv "${WORK}/bin/actionlint" "${OUT}/actionlint"
echo "${ACTIONLINT_VERSION}" > "${STAMP}"
echo "${OUT}"
