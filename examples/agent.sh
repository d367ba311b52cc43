#!/bin/sh
# An example external agent, run with
#   microremed run --remediate-method "cmd:./examples/agent.sh" ...
# It reads the diagnosis report as JSON on stdin and acts on the cluster itself with kubectl, as
# the case's confined identity (KUBECONFIG is set for it; nothing else of the user's is there).
# It could instead print a playbook on stdout, which the harness would execute.
set -eu
report=$(cat)
field() { printf '%s' "$report" | python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }
ns=$(field namespace)
svc=$(field service)
echo "restarting deployment/$svc in $ns" >&2
kubectl -n "$ns" rollout restart "deployment/$svc" >&2
kubectl -n "$ns" rollout status "deployment/$svc" --timeout=600s >&2
