# Sourced by scripts/k8s-assets.sh and scripts/k8s-node-assets.sh: compiles commands of
# k8s.io/kubernetes (cmd/NAME) at K8S_VERSION from the Go module proxy. The sourcing script sets
# K8S_VERSION, exports GOFLAGS/CGO_ENABLED and defines log().
# shellcheck shell=bash

# The binary at $1 exists and reports K8S_VERSION (components answer --version, kubectl `version --client`).
k8s_command_current() {
  [[ -x "$1" && "$("$1" --version 2>/dev/null || "$1" version --client 2>/dev/null || true)" == *"${K8S_VERSION}"* ]]
}

# build_kubernetes_commands MODULE OUT WORK NAME...: builds each k8s.io/kubernetes/cmd/NAME that is
# not yet OUT/NAME at K8S_VERSION, in a scratch Go module named MODULE under WORK.
build_kubernetes_commands() {
  local module="$1" out="$2" dir="$3/kubernetes"
  shift 3
  local missing=() b
  for b in "$@"; do
    if k8s_command_current "${out}/${b}"; then
      log "${b} ${K8S_VERSION} already built"
    else
      missing+=("${b}")
    fi
  done
  [[ ${#missing[@]} -gt 0 ]] || return 0
  log "building ${missing[*]} ${K8S_VERSION}"
  mkdir -p "${dir}"
  # k8s.io/kubernetes replaces every staging repo with ./staging/...; those replaces do not apply
  # to a dependent module, so the scratch module maps each staging repo to its published version
  # (staging modules are published as k8s.io/<name> v0.<minor>.<patch>).
  local gomod staging m
  gomod="$(go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  staging="$(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "${gomod}")"
  {
    echo "module ${module}"
    echo
    echo "go 1.24.0"
    echo
    echo "require k8s.io/kubernetes ${K8S_VERSION}"
    echo
    echo "replace ("
    for m in ${staging}; do echo "	${m} => ${m} v0.${K8S_VERSION#v1.}"; done
    echo ")"
  } > "${dir}/go.mod"
  {
    echo "//go:build tools"
    echo
    echo "package tools"
    echo
    for b in "${missing[@]}"; do echo "import _ \"k8s.io/kubernetes/cmd/${b}\""; done
  } > "${dir}/tools.go"
  (
    cd "${dir}" || exit 1
    for b in "${missing[@]}"; do go get "k8s.io/kubernetes/cmd/${b}@${K8S_VERSION}"; done
    for b in "${missing[@]}"; do
      log "compiling ${b}"
      go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/client-go/pkg/version.gitVersion=${K8S_VERSION}" \
        -o "${out}/${b}.tmp" "k8s.io/kubernetes/cmd/${b}"
      mv "${out}/${b}.tmp" "${out}/${b}"
    done
  )
}
