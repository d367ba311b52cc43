#!/usr/bin/env bash
# Sets up a real single-node cluster for MicroRemed, as the reference's install.sh does:
# k3s, Helm, Chaos Mesh 2.7 (on k3s's containerd socket), Ansible with kubernetes.core.
# Only for `--cluster kube`; the embedded cluster needs none of this.
#
#   scripts/install.sh [--mirror REGISTRY_MIRROR] [--chaos-version 2.7.2] [--skip-k3s]
#
# Registry mirrors are an option, not the default: pass --mirror https://mirror.example to have
# k3s pull docker.io images through it.
set -euo pipefail

CHAOS_VERSION=2.7.2
MIRROR=""
SKIP_K3S=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mirror) MIRROR="$2"; shift 2 ;;
    --chaos-version) CHAOS_VERSION="$2"; shift 2 ;;
    --skip-k3s) SKIP_K3S=1; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

say() { printf 'install: %s\n' "$*"; }
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"

if [ "$SKIP_K3S" = 0 ] && ! command -v k3s >/dev/null 2>&1; then
  if [ -n "$MIRROR" ]; then
    say "configuring registry mirror $MIRROR for docker.io"
    $SUDO mkdir -p /etc/rancher/k3s
    printf 'mirrors:\n  docker.io:\n    endpoint:\n      - "%s"\n' "$MIRROR" | $SUDO tee /etc/rancher/k3s/registries.yaml >/dev/null
  fi
  say "installing k3s"
  curl -sfL https://get.k3s.io | $SUDO sh -s - --write-kubeconfig-mode 644
fi

KCFG="${KUBECONFIG:-$HOME/.kube/config}"
if [ ! -f "$KCFG" ] && [ -f /etc/rancher/k3s/k3s.yaml ]; then
  mkdir -p "$(dirname "$KCFG")"
  $SUDO cp /etc/rancher/k3s/k3s.yaml "$KCFG"
  $SUDO chown "$(id -u):$(id -g)" "$KCFG"
  say "kubeconfig written to $KCFG"
fi
export KUBECONFIG="$KCFG"

if ! command -v helm >/dev/null 2>&1; then
  say "installing helm"
  curl -fsSL https://raw.githubusercontent.com/helm/helm/main/scripts/get-helm-3 | bash
fi

if ! kubectl get ns chaos-mesh >/dev/null 2>&1; then
  say "installing Chaos Mesh $CHAOS_VERSION on k3s's containerd"
  helm repo add chaos-mesh https://charts.chaos-mesh.org >/dev/null
  helm repo update >/dev/null
  kubectl create ns chaos-mesh
  helm install chaos-mesh chaos-mesh/chaos-mesh -n chaos-mesh --version "$CHAOS_VERSION" \
    --set chaosDaemon.runtime=containerd \
    --set chaosDaemon.socketPath=/run/k3s/containerd/containerd.sock \
    --set dashboard.create=false
fi

if ! command -v ansible-playbook >/dev/null 2>&1 || ! /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
  say "installing Ansible and the Kubernetes Python client"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq ansible python3-kubernetes
fi
ansible-galaxy collection list kubernetes.core 2>/dev/null | grep -q kubernetes.core || ansible-galaxy collection install kubernetes.core

say "done. Check with: microremed doctor --cluster kube --kubeconfig $KCFG"
