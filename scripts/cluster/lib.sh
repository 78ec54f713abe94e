# Sourced by scripts/cluster/*: where the local Kubernetes cluster keeps its things, and small helpers.
# Everything built once (Kubernetes binaries, base root filesystems, images) lives in TALKIDE_CLUSTER_CACHE,
# outside the repository, and is reused by every later run on the same machine. Everything of one running
# cluster (certificates, etcd data, kubelet and containerd state, logs, pids) lives in TALKIDE_CLUSTER_RUN and
# is removed by `down`.
TALKIDE_CLUSTER_CACHE="${TALKIDE_CLUSTER_CACHE:-/var/cache/talkide-cluster}"
TALKIDE_CLUSTER_RUN="${TALKIDE_CLUSTER_RUN:-/var/lib/talkide-cluster}"
TALKIDE_CLUSTER_KUBECONFIG="${TALKIDE_CLUSTER_KUBECONFIG:-$TALKIDE_CLUSTER_RUN/admin.kubeconfig}"
KUBE_VERSION=v1.20.2
KUBE_BIN="$TALKIDE_CLUSTER_CACHE/kubernetes-$KUBE_VERSION/bin"
KUBE_COMMANDS="kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl"

# Addresses: everything listens on loopback, pods sit on a bridge of their own with no route out of the machine.
CLUSTER_BRIDGE=talkide0
POD_SUBNET=10.244.77.0/24
POD_GATEWAY=10.244.77.1          # the bridge's address; dnsmasq answers cluster DNS here
SERVICE_SUBNET=10.97.0.0/16
SERVICE_API_IP=10.97.0.1
API_PORT=6443

# The apt packages the cluster needs at run time, and those it needs once to build.
CLUSTER_RUN_PACKAGES="etcd-server containerd runc containernetworking-plugins iptables nftables conntrack dnsmasq-base openssl curl"
CLUSTER_BUILD_PACKAGES="golang-go dpkg-dev golang-github-modern-go-reflect2-dev"
CLUSTER_IMAGE_PACKAGES="podman debootstrap busybox-static"

# Files, images and daemons' state made with the usual permissions whatever the caller's umask (a umask of 077
# would make containerd's snapshot directories, and so every container's root, unreadable to non-root users).
umask 022

log() { echo "[$(date -u +%T)] $*"; }
die() { echo "cluster: $*" >&2; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || die "must run as root (it starts a kubelet, containerd and changes iptables)"; }

# Installs the apt packages given when missing (root only); dies with one line naming what could not be installed.
ensure_packages() {
  local missing=() p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
  [ ${#missing[@]} = 0 ] && return 0
  command -v apt-get >/dev/null || die "missing packages (${missing[*]}) and no apt-get to install them"
  log "installing ${missing[*]} (apt)"
  apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "could not install packages: ${missing[*]} (apt-get install failed)"
}

kubectl() { "$KUBE_BIN/kubectl" --kubeconfig "$TALKIDE_CLUSTER_KUBECONFIG" "$@"; }

elapsed() { echo "$(( $(date +%s) - $1 ))s"; }
