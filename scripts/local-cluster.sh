#!/usr/bin/env bash
# A single-node Kubernetes on this machine, in a network namespace of its own, with locally
# built images (a stable contract: scripts outside the repository use it).
#
#   scripts/local-cluster.sh up       build or reuse the assets and images (cached under
#                                     ~/.cache/hyphae), start etcd, kube-apiserver,
#                                     kube-controller-manager, kube-scheduler, kube-proxy,
#                                     containerd + runc + CNI, CoreDNS and a kubelet, wait for the
#                                     node to be Ready; idempotent. Stdout ends with KEY=VALUE
#                                     lines: KUBECONFIG, HYPHAE_IMAGE, POSTGRES_IMAGE, NATS_IMAGE.
#   scripts/local-cluster.sh exec -- CMD…   run CMD in the cluster's network namespace with
#                                     KUBECONFIG exported and kubectl and helm on PATH.
#   scripts/local-cluster.sh status   prints the node and the components' state; exit 1 when down.
#   scripts/local-cluster.sh down     stop every process it started (by pid, and whatever runs in
#                                     its cgroups), unmount, remove the namespace, cgroups and CNI
#                                     state, and restore every machine setting it changed. Safe to
#                                     repeat, and after an interrupted `up` or a lost session.
#
# Nothing leaves the machine: the namespace has one veth pair whose host end carries no address
# and no route, and no default route inside. Clients (tests, kubectl, helm) run inside it (`exec`).
# Env: HYPHAE_CLUSTER_NAME (default hyphae; one cluster per name), HYPHAE_ASSETS_DIR.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO="$(pwd)"

NAME="${HYPHAE_CLUSTER_NAME:-hyphae}"
[[ "${NAME}" =~ ^[a-z0-9]{1,8}$ ]] || { echo "local-cluster: HYPHAE_CLUSTER_NAME must be 1-8 of [a-z0-9]" >&2; exit 2; }
CACHE="${HYPHAE_ASSETS_DIR:-$HOME/.cache/hyphae}"
STATE="/var/lib/hyphae-cluster/${NAME}"
NETNS="hyphae-${NAME}"
VETH_HOST="hyh-${NAME}"
VETH_NODE="hyn-${NAME}"
NODE_IP=10.213.0.2
NODE_NAME=hyphae-node
POD_CIDR=10.214.0.0/16
NODE_POD_CIDR=10.214.0.0/24
SERVICE_CIDR=10.215.0.0/16
API_SERVICE_IP=10.215.0.1
CGROUP="hyphae-${NAME}"           # kubelet's cgroupRoot: every pod lives below it
DAEMON_CGROUP="hyphae-${NAME}.daemons"  # the daemons and their children (containerd shims)
CONTAINERD_ROOT="${CACHE}/containerd/${NAME}"  # images stay imported across up/down
LOGS="${CACHE}/cluster-logs/${NAME}"
PKI="${STATE}/pki"
KUBECONFIG_FILE="${PKI}/admin.kubeconfig"
SYSCTLS_SAVED="/var/lib/hyphae-cluster/sysctls.saved"
SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
APT_PACKAGES=(containerd runc containernetworking-plugins iptables conntrack buildah debootstrap nats-server openssl iproute2)
log() { echo "local-cluster: $(date -u +%H:%M:%S) $*" >&2; }
die() { log "$*"; exit 1; }

[[ "$(id -u)" == 0 ]] || die "must run as root (network namespace, cgroups, mounts)"

# --- processes -------------------------------------------------------------------------------

# pids of every process in a cgroup subtree of the pids controller.
cgroup_pids() {
  local dir="/sys/fs/cgroup/pids/$1"
  [[ -d "${dir}" ]] || return 0
  find "${dir}" -name cgroup.procs -exec cat {} + 2>/dev/null || true
}

# Is pid $1 still the process we started as $2 (guards against a recycled pid)?
is_ours() { [[ -r "/proc/$1/cmdline" ]] && tr '\0' ' ' < "/proc/$1/cmdline" | grep -q -- "$2"; }

start() {
  local name="$1" bin="$2"
  shift 2
  local pidfile="${STATE}/pids/${name}.pid"
  if [[ -f "${pidfile}" ]] && is_ours "$(cat "${pidfile}")" "${bin}"; then return; fi
  mkdir -p "${STATE}/pids" "${LOGS}"
  # setsid: the daemons outlive the shell that started them; the cgroup lets `down` find every
  # process they spawn even when the pid files are lost.
  nsenter --net="/run/netns/${NETNS}" setsid "${bin}" "$@" >"${LOGS}/${name}.log" 2>&1 < /dev/null &
  local pid=$!
  echo "${pid}" > "${pidfile}"
  echo "${pid}" > "/sys/fs/cgroup/pids/${DAEMON_CGROUP}/cgroup.procs" 2>/dev/null || true
}

wait_for() {
  local what="$1" tries="$2"
  shift 2
  local i
  for ((i = 0; i < tries; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  die "timed out waiting for ${what} (logs: ${LOGS})"
}

# nsenter, not `ip netns exec`: that one also unshares the mount namespace and remounts /sys,
# which hides the cgroup mounts from kubelet and its volume mounts from containerd.
in_ns() { nsenter --net="/run/netns/${NETNS}" "$@"; }
kubectl_ns() { in_ns "${ASSETS}/kubectl" --kubeconfig "${KUBECONFIG_FILE}" "$@"; }

# --- prerequisites ---------------------------------------------------------------------------

ensure_packages() {
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do dpkg -s "${p}" >/dev/null 2>&1 || missing+=("${p}"); done
  [[ ${#missing[@]} -eq 0 ]] && return
  log "installing ${missing[*]} (Debian)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# --- PKI -------------------------------------------------------------------------------------

pki() {
  [[ -f "${PKI}/.complete" ]] && return
  mkdir -p "${PKI}"
  local o="${PKI}"
  openssl ecparam -name prime256v1 -genkey -noout -out "${o}/ca.key" 2>/dev/null
  openssl req -x509 -new -key "${o}/ca.key" -subj "/CN=hyphae-local-ca" -days 3650 -out "${o}/ca.crt" 2>/dev/null
  openssl genrsa -out "${o}/sa.key" 2048 2>/dev/null
  openssl rsa -in "${o}/sa.key" -pubout -out "${o}/sa.pub" 2>/dev/null
  # cert NAME SUBJECT [SAN]
  cert() {
    local n="$1" subj="$2" san="${3:-}" ext="${o}/${1}.ext"
    openssl ecparam -name prime256v1 -genkey -noout -out "${o}/${n}.key" 2>/dev/null
    openssl req -new -key "${o}/${n}.key" -subj "${subj}" -out "${o}/${n}.csr" 2>/dev/null
    {
      echo "basicConstraints=CA:FALSE"
      echo "keyUsage=critical,digitalSignature,keyEncipherment"
      if [[ -n "${san}" ]]; then echo "extendedKeyUsage=serverAuth,clientAuth"; echo "subjectAltName=${san}"; else echo "extendedKeyUsage=clientAuth"; fi
    } > "${ext}"
    openssl x509 -req -in "${o}/${n}.csr" -CA "${o}/ca.crt" -CAkey "${o}/ca.key" -CAcreateserial \
      -days 3650 -extfile "${ext}" -out "${o}/${n}.crt" 2>/dev/null
    rm -f "${o}/${n}.csr" "${ext}"
    chmod 600 "${o}/${n}.key"
  }
  kubeconfig() {
    cat > "${o}/${1}.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: hyphae
    cluster:
      server: https://${NODE_IP}:6443
      certificate-authority: ${o}/ca.crt
users:
  - name: ${1}
    user:
      client-certificate: ${o}/${1}.crt
      client-key: ${o}/${1}.key
contexts:
  - name: hyphae
    context: { cluster: hyphae, user: ${1} }
current-context: hyphae
EOF
  }
  cert apiserver "/CN=kube-apiserver" "IP:${NODE_IP},IP:${API_SERVICE_IP},IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert kubelet-serving "/CN=${NODE_NAME}" "IP:${NODE_IP},DNS:${NODE_NAME}"
  cert apiserver-kubelet "/O=system:masters/CN=kube-apiserver-kubelet-client"
  cert admin "/O=system:masters/CN=hyphae-admin"
  cert controller-manager "/CN=system:kube-controller-manager"
  cert scheduler "/CN=system:kube-scheduler"
  cert kube-proxy "/CN=system:kube-proxy"
  cert kubelet "/O=system:nodes/CN=system:node:${NODE_NAME}"
  cert coredns "/CN=hyphae:coredns"
  local k
  for k in admin controller-manager scheduler kube-proxy kubelet coredns; do kubeconfig "${k}"; done
  touch "${PKI}/.complete"
}

# --- configuration files ---------------------------------------------------------------------

configs() {
  local c="${STATE}/config"
  mkdir -p "${c}" "${STATE}/cni/net.d" "${STATE}/cni/ipam" "${STATE}/kubelet" "${STATE}/kubelet-plugins" \
    "${STATE}/pod-logs" "${STATE}/containerd" "${STATE}/runc" "${CONTAINERD_ROOT}"
  cat > "${c}/containerd.toml" <<EOF
version = 2
root = "${CONTAINERD_ROOT}"
state = "${STATE}/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "${STATE}/containerd/containerd.sock"

[plugins."io.containerd.internal.v1.opt"]
  path = "${STATE}/containerd/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  # No CAP_SYS_RESOURCE here: an oom_score_adj below containerd's own would fail every pod
  # ("can't get final child's PID from pipe"); clamp it instead.
  restrict_oom_score_adj = true
  # Pod network namespaces below the state folder, not /run/netns: "down" unmounts them with the rest.
  netns_mounts_under_state_dir = true
  disable_apparmor = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "$(command -v runc)"
        Root = "${STATE}/runc"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${STATE}/cni/net.d"
EOF
  cat > "${STATE}/cni/net.d/10-${NETNS}.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "${NETNS}",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "${NODE_POD_CIDR}" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "${STATE}/cni/ipam"
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
EOF
  echo "nameserver ${NODE_IP}" > "${c}/resolv.conf"
  cat > "${c}/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://${STATE}/containerd/containerd.sock
# cgroup v1 machines: kubelet 1.34 refuses them unless told otherwise.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /${CGROUP}
failSwapOn: false
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: ${PKI}/ca.crt }
authorization: { mode: Webhook }
tlsCertFile: ${PKI}/kubelet-serving.crt
tlsPrivateKeyFile: ${PKI}/kubelet-serving.key
clusterDomain: cluster.local
clusterDNS: [${NODE_IP}]
resolvConf: ${c}/resolv.conf
podLogsDir: ${STATE}/pod-logs
volumePluginDir: ${STATE}/kubelet-plugins
# Images are loaded locally and never pulled: never collect them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: { memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1% }
maxPods: 60
serializeImagePulls: false
EOF
  cat > "${c}/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: ${PKI}/kube-proxy.kubeconfig }
mode: iptables
clusterCIDR: ${POD_CIDR}
hostnameOverride: ${NODE_NAME}
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
# 0 leaves the conntrack table and timeouts alone (machine-wide settings).
conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }
iptables: { localhostNodePorts: false }
EOF
  cat > "${c}/Corefile" <<EOF
.:53 {
    bind ${NODE_IP}
    errors
    health 127.0.0.1:18080
    ready 127.0.0.1:18181
    loadbalance
    cache 5
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig ${PKI}/coredns.kubeconfig
        pods insecure
        ttl 5
        fallthrough in-addr.arpa ip6.arpa
    }
}
EOF
  {
    cat <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: "hyphae:coredns" }
rules:
  - apiGroups: [""]
    resources: [endpoints, services, pods, namespaces]
    verbs: [list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: "hyphae:coredns" }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "hyphae:coredns" }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: "hyphae:coredns" }]
---
# Volumes are pre-provisioned folders on the node: a claim binds one when its pod is scheduled.
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local
  annotations: { storageclass.kubernetes.io/is-default-class: "true" }
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Retain
EOF
    local i
    for i in $(seq -w 1 12); do
      mkdir -p "${STATE}/volumes/pv-${i}"
      chmod 777 "${STATE}/volumes/pv-${i}"
      cat <<EOF
---
apiVersion: v1
kind: PersistentVolume
metadata: { name: "local-pv-${i}" }
spec:
  storageClassName: local
  capacity: { storage: 100Gi }
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: { path: "${STATE}/volumes/pv-${i}", type: Directory }
EOF
    done
  } > "${STATE}/bootstrap.yaml"
}

# --- network namespace, cgroups, sysctls -----------------------------------------------------

netns() {
  if ! ip netns list | grep -qw "${NETNS}"; then
    ip netns add "${NETNS}"
  fi
  if ! in_ns ip link show "${VETH_NODE}" >/dev/null 2>&1; then
    ip link del "${VETH_HOST}" 2>/dev/null || true
    ip link add "${VETH_HOST}" type veth peer name "${VETH_NODE}" netns "${NETNS}"
    ip link set "${VETH_HOST}" up
    in_ns ip addr add "${NODE_IP}/30" dev "${VETH_NODE}"
    in_ns ip link set "${VETH_NODE}" up
  fi
  in_ns ip link set lo up
  # Clients in the namespace (tests, helm) reach Service IPs: a connection needs a route before
  # kube-proxy's OUTPUT rules rewrite it to a pod. The route goes to one end of a veth pair kept
  # inside the namespace with its peer down (no carrier; this kernel has no dummy device), so a
  # packet to a Service IP that no rule rewrites is dropped here and never leaves.
  if ! in_ns ip link show hys0 >/dev/null 2>&1; then
    in_ns ip link add hys0 type veth peer name hys1
    in_ns ip link set hys0 up
  fi
  in_ns ip route replace "${SERVICE_CIDR}" dev hys0
  in_ns sysctl -qw net.ipv4.ip_forward=1
  [[ -w /proc/sys/net/bridge/bridge-nf-call-iptables ]] && in_ns sysctl -qw net.bridge.bridge-nf-call-iptables=1
  # kubelet rewrites some machine-wide sysctls; keep the first values seen to restore on down.
  # One file for all clusters of the machine: a second cluster started while the first one's
  # kubelet runs would otherwise save the kubelet's values; the last "down" restores them.
  if [[ ! -f "${SYSCTLS_SAVED}" ]]; then
    local s
    for s in "${SYSCTLS[@]}"; do echo "${s}=$(sysctl -n "${s}")"; done > "${SYSCTLS_SAVED}"
  fi
  mkdir -p "/sys/fs/cgroup/pids/${DAEMON_CGROUP}"
  # kubelet's cgroupRoot must exist in every v1 hierarchy; a new cpuset starts empty.
  local ctl
  for ctl in /sys/fs/cgroup/*/; do
    [[ "${ctl}" == */unified/ ]] && continue
    [[ -f "${ctl}cgroup.procs" ]] || continue
    mkdir -p "${ctl}${CGROUP}"
    if [[ -f "${ctl}cpuset.cpus" ]]; then
      cat "${ctl}cpuset.cpus" > "${ctl}${CGROUP}/cpuset.cpus"
      cat "${ctl}cpuset.mems" > "${ctl}${CGROUP}/cpuset.mems"
    fi
  done
  # kubelet's root folder must be a shared mount point so pod volume mounts reach the containers.
  if ! mountpoint -q "${STATE}/kubelet"; then
    mount --bind "${STATE}/kubelet" "${STATE}/kubelet"
    mount --make-rshared "${STATE}/kubelet"
  fi
}

# --- up --------------------------------------------------------------------------------------

import_images() {
  local ctr=(ctr --address "${STATE}/containerd/containerd.sock" --namespace k8s.io) v tar
  local have
  have="$("${ctr[@]}" images list -q 2>/dev/null || true)"
  for v in HYPHAE PAUSE POSTGRES NATS; do
    local image_var="${v}_IMAGE" tar_var="${v}_TAR"
    local image="${!image_var}"
    tar="${!tar_var}"
    if ! grep -qx "${image}" <<<"${have}"; then
      log "importing ${image}"
      nice -n 10 "${ctr[@]}" images import "${tar}" >/dev/null
    fi
  done
  # Images of earlier builds go (containerd's root is cached across up/down; its garbage
  # collector frees their layers): every ref, by name or by the CRI's image id, whose target is
  # not one of the current images.
  local current=" ${HYPHAE_IMAGE} ${PAUSE_IMAGE} ${POSTGRES_IMAGE} ${NATS_IMAGE} " keep ref
  keep="$("${ctr[@]}" images list | awk -v c="${current}" 'NR > 1 && index(c, " " $1 " ") { print $3 }')"
  "${ctr[@]}" images list | awk 'NR > 1 { print $1, $3 }' | while read -r ref target; do
    [[ "${ref}" == hyphae.local/* || "${ref}" == sha256:* ]] || continue
    grep -qx "${target}" <<<"${keep}" && continue
    "${ctr[@]}" images rm "${ref}" >/dev/null 2>&1 || true
  done
}

up() {
  ensure_packages
  ASSETS="$(bash scripts/k8s-node-assets.sh | tail -n 1)"
  local images
  images="$(bash scripts/cluster-images.sh)"
  eval "$(grep -E '^[A-Z_]+=[^ ]+$' <<<"${images}")"
  mkdir -p "${STATE}" "${LOGS}"
  echo "${ASSETS}" > "${STATE}/assets"
  printf '%s\n' "${images}" > "${STATE}/images.env"
  pki
  configs
  netns

  start etcd "${ASSETS}/etcd" --name "${NAME}" --data-dir "${STATE}/etcd" \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster "${NAME}=http://127.0.0.1:2380" --quota-backend-bytes 2147483648 \
    --unsafe-no-fsync --log-level warn
  start containerd /usr/bin/containerd --config "${STATE}/config/containerd.toml"
  start kube-apiserver "${ASSETS}/kube-apiserver" --v=1 \
    --advertise-address "${NODE_IP}" --bind-address 0.0.0.0 --secure-port 6443 \
    --etcd-servers http://127.0.0.1:2379 \
    --client-ca-file "${PKI}/ca.crt" --tls-cert-file "${PKI}/apiserver.crt" --tls-private-key-file "${PKI}/apiserver.key" \
    --kubelet-certificate-authority "${PKI}/ca.crt" --kubelet-client-certificate "${PKI}/apiserver-kubelet.crt" \
    --kubelet-client-key "${PKI}/apiserver-kubelet.key" --kubelet-preferred-address-types InternalIP \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "${PKI}/sa.pub" --service-account-signing-key-file "${PKI}/sa.key" \
    --service-cluster-ip-range "${SERVICE_CIDR}" --allow-privileged=false
  wait_for "containerd" 60 ctr --address "${STATE}/containerd/containerd.sock" version
  import_images
  wait_for "kube-apiserver" 120 kubectl_ns get --raw /readyz
  kubectl_ns apply --server-side -f "${STATE}/bootstrap.yaml" >/dev/null

  start kube-controller-manager "${ASSETS}/kube-controller-manager" --v=1 \
    --kubeconfig "${PKI}/controller-manager.kubeconfig" \
    --authentication-kubeconfig "${PKI}/controller-manager.kubeconfig" \
    --authorization-kubeconfig "${PKI}/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials \
    --service-account-private-key-file "${PKI}/sa.key" --root-ca-file "${PKI}/ca.crt" \
    --cluster-signing-cert-file "${PKI}/ca.crt" --cluster-signing-key-file "${PKI}/ca.key" \
    --allocate-node-cidrs --cluster-cidr "${POD_CIDR}" --node-cidr-mask-size 24 \
    --service-cluster-ip-range "${SERVICE_CIDR}" --controllers '*'
  start kube-scheduler "${ASSETS}/kube-scheduler" --v=1 \
    --kubeconfig "${PKI}/scheduler.kubeconfig" \
    --authentication-kubeconfig "${PKI}/scheduler.kubeconfig" \
    --authorization-kubeconfig "${PKI}/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false
  start kubelet "${ASSETS}/kubelet" --v=1 --config "${STATE}/config/kubelet.yaml" \
    --kubeconfig "${PKI}/kubelet.kubeconfig" --cert-dir "${STATE}/kubelet/pki" \
    --root-dir "${STATE}/kubelet" --hostname-override "${NODE_NAME}" --node-ip "${NODE_IP}"
  start kube-proxy "${ASSETS}/kube-proxy" --v=1 --config "${STATE}/config/kube-proxy.yaml"
  start coredns "${ASSETS}/coredns" -conf "${STATE}/config/Corefile"

  wait_for "node ${NODE_NAME} Ready" 180 kubectl_ns wait --for=condition=Ready "node/${NODE_NAME}" --timeout=2s
  wait_for "CoreDNS" 60 in_ns bash -c 'exec 3<>/dev/tcp/127.0.0.1/18181' 
  log "node ${NODE_NAME} Ready (logs: ${LOGS})"
  echo "KUBECONFIG=${KUBECONFIG_FILE}"
  echo "HYPHAE_IMAGE=${HYPHAE_IMAGE}"
  echo "POSTGRES_IMAGE=${POSTGRES_IMAGE}"
  echo "NATS_IMAGE=${NATS_IMAGE}"
}

# --- exec / status ---------------------------------------------------------------------------

exec_in() {
  [[ -f "${STATE}/assets" ]] || die "no cluster ${NAME}: run 'scripts/local-cluster.sh up' first"
  [[ "${1:-}" == "--" ]] && shift
  [[ $# -gt 0 ]] || die "usage: local-cluster.sh exec -- CMD…"
  local assets
  assets="$(cat "${STATE}/assets")"
  local env=(KUBECONFIG="${KUBECONFIG_FILE}" PATH="${assets}:${PATH}" HYPHAE_LOCAL_CLUSTER="${NAME}")
  if [[ -f "${STATE}/images.env" ]]; then
    local line
    while IFS= read -r line; do [[ "${line}" =~ ^[A-Z_]+= ]] && env+=("${line}"); done < "${STATE}/images.env"
  fi
  exec nsenter --net="/run/netns/${NETNS}" env "${env[@]}" "$@"
}

status() {
  local ok=0 f name pid
  for f in "${STATE}"/pids/*.pid; do
    [[ -f "${f}" ]] || { echo "down"; return 1; }
    name="$(basename "${f}" .pid)"
    pid="$(cat "${f}")"
    if [[ -d "/proc/${pid}" ]]; then echo "${name}: running (pid ${pid})"; else echo "${name}: stopped"; ok=1; fi
  done
  ASSETS="$(cat "${STATE}/assets" 2>/dev/null || true)"
  [[ -n "${ASSETS}" ]] && kubectl_ns get nodes -o wide 2>/dev/null || ok=1
  return "${ok}"
}

# --- down ------------------------------------------------------------------------------------

kill_all() {
  local sig="$1" pids
  pids="$( { cgroup_pids "${CGROUP}"; cgroup_pids "${DAEMON_CGROUP}"; } | sort -u)"
  [[ -z "${pids}" ]] && return 1
  # shellcheck disable=SC2086
  kill "-${sig}" ${pids} 2>/dev/null || true
  return 0
}

down() {
  local f pid i
  # The kubelet first (it would restart what we stop), then the rest by pid.
  for f in kubelet kube-proxy kube-scheduler kube-controller-manager coredns kube-apiserver containerd etcd; do
    [[ -f "${STATE}/pids/${f}.pid" ]] || continue
    pid="$(cat "${STATE}/pids/${f}.pid")"
    is_ours "${pid}" "${f}" && kill -TERM "${pid}" 2>/dev/null || true
  done
  # Everything else they spawned is in our cgroups: pods, containerd shims.
  for ((i = 0; i < 20; i++)); do
    kill_all TERM || break
    sleep 0.5
  done
  for ((i = 0; i < 20; i++)); do
    kill_all KILL || break
    sleep 0.5
  done
  # Unmount everything below the state and containerd folders, deepest first.
  local m
  for ((i = 0; i < 5; i++)); do
    m="$(awk -v a="${STATE}" -v b="${CONTAINERD_ROOT}" '$5 == a || index($5, a "/") == 1 || index($5, b "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r)"
    [[ -z "${m}" ]] && break
    while IFS= read -r f; do umount -l "${f}" 2>/dev/null || true; done <<<"${m}"
  done
  ip netns pids "${NETNS}" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
  ip netns del "${NETNS}" 2>/dev/null || true
  ip link del "${VETH_HOST}" 2>/dev/null || true
  # cgroups: remove the trees kubelet created in every controller, deepest first.
  local ctl
  for ctl in /sys/fs/cgroup/*/; do
    for f in "${ctl}${CGROUP}" "${ctl}${DAEMON_CGROUP}"; do
      [[ -d "${f}" ]] && find "${f}" -depth -type d -exec rmdir {} \; 2>/dev/null || true
    done
  done
  local others
  others="$(find "${STATE%/*}" -mindepth 1 -maxdepth 1 -type d ! -path "${STATE}" 2>/dev/null)"
  if [[ -f "${SYSCTLS_SAVED}" && -z "${others}" ]]; then
    local line
    while IFS= read -r line; do sysctl -qw "${line}" 2>/dev/null || log "could not restore ${line}"; done < "${SYSCTLS_SAVED}"
    rm -f "${SYSCTLS_SAVED}"
  fi
  # Pod data, etcd and CNI state go with the cluster; images stay in containerd's cached root.
  [[ -d "${STATE}" ]] && rm -rf --one-file-system "${STATE}"
  [[ -d "${CONTAINERD_ROOT}/tmpmounts" ]] && rmdir "${CONTAINERD_ROOT}"/tmpmounts/* 2>/dev/null || true
  log "cluster ${NAME} is down"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  exec) shift; exec_in "$@" ;;
  *) echo "usage: local-cluster.sh up|exec -- CMD…|status|down" >&2; exit 2 ;;
esac
