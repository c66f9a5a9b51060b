#!/usr/bin/env bash
# `npm run test:e2e`: brings the local cluster up (scripts/local-cluster.sh, cached builds under
# ~/.cache/hyphae), runs the e2e tier inside its network namespace, and always tears the cluster
# down, also when a test fails or the run is interrupted (HYPHAE_KEEP_CLUSTER=1 keeps it up).
# Extra arguments go to vitest. HYPHAE_CLUSTER_NAME picks the cluster (default hyphae).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

teardown() {
  if [[ -z "${HYPHAE_KEEP_CLUSTER:-}" ]]; then bash scripts/local-cluster.sh down || true; fi
  echo "test-e2e: $(( $(date +%s) - start )) s in all" >&2
}
start=$(date +%s)
trap teardown EXIT
trap 'exit 130' INT TERM

bash scripts/local-cluster.sh up
# The monitoring tests' Prometheus (docs/operations.md): built once from its Go module, then cached.
bash scripts/prometheus-assets.sh > /dev/null
echo "test-e2e: cluster up in $(( $(date +%s) - start )) s" >&2
bash scripts/local-cluster.sh exec -- npx vitest run --project e2e "$@"
