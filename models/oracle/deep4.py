# The incident oracle's detector for multi-four-masked (docs/incident-tier.md, family "multi"): the
# third of four causes on one call path, found from what the namespace says of itself:
#   unadmitted_caller  a NetworkPolicy with Ingress selects the pods behind a Service that a
#                      Deployment's environment dials (a host:port value, or <X>_HOST with its
#                      <X>_PORT, from its env or the Secrets and ConfigMaps of its envFrom), and none
#                      of the policies selecting those pods admits that Deployment's pods (their
#                      template's labels) on the port the Service sends to: a rule admitting the
#                      caller's app label on that port is added to the policy, which keeps admitting
#                      what it admitted. The other three causes are multi.py's and incident-fix.py's.
# Returns Findings (incident-fix.py's class) and finds nothing in a namespace without policies.
import json
import re

from multi import ADDR, Finding, config_sources, containers, env_of, items


def matches(selector, labels):
    """A label selector (matchLabels, matchExpressions) against labels; {} selects everything."""
    if selector is None:
        return False
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, values = e.get("key"), e.get("operator"), e.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def types_of(p):
    spec = p.get("spec") or {}
    return spec.get("policyTypes") or (["Ingress", "Egress"] if spec.get("egress") else ["Ingress"])


def port_admitted(ports, port, name):
    if not ports:
        return True
    for p in ports:
        if (p.get("protocol") or "TCP") != "TCP":
            continue
        want = p.get("port")
        if want is None or want == port or (name and want == name):
            return True
        if isinstance(want, int) and p.get("endPort") and want <= port <= p["endPort"]:
            return True
    return False


def admits(policy, labels, port, name):
    """Whether one of the policy's ingress rules admits a pod of this namespace with these labels."""
    for rule in (policy.get("spec") or {}).get("ingress") or []:
        peers = rule.get("from")
        ok = not peers or any(
            "ipBlock" not in peer and ("podSelector" not in peer or matches(peer["podSelector"], labels)) for peer in peers
        )
        if ok and port_admitted(rule.get("ports"), port, name):
            return True
    return False


def dialed_hosts(c, maps, secrets):
    """The hosts a container's environment dials."""
    env = env_of(c, maps, secrets)
    hosts = set()
    for var, value in env.items():
        m = ADDR.match(str(value or ""))
        if m:
            hosts.add(m.group(1))
        if var.endswith("_HOST") and re.match(r"^[a-z0-9-]+$", str(value or "")) and str(env.get(var[: -len("_HOST")] + "_PORT") or "").isdigit():
            hosts.add(value)
    return hosts


def unadmitted_caller(st):
    """A policy on a callee's pods that admits none of a caller's: the caller's app added to it."""
    policies = [p for p in items("networkpolicies") if "Ingress" in types_of(p)]
    if not policies:
        return []
    services = {s["metadata"]["name"]: s for s in st["services"]}
    maps, secrets = config_sources()
    out = {}
    for d in st["deployments"]:
        tpl = d["spec"]["template"]
        labels = tpl["metadata"].get("labels") or {}
        if not labels.get("app"):
            continue
        hosts = set().union(*[dialed_hosts(c, maps, secrets) for c in containers(tpl["spec"])] or [set()])
        for host in sorted(hosts):
            svc = services.get(host)
            sel = (svc or {}).get("spec", {}).get("selector")
            if not sel:
                continue
            pods = [p for p in st["pods"] if matches({"matchLabels": sel}, p["metadata"].get("labels") or {}) and p.get("status", {}).get("phase") == "Running"]
            if not pods:
                continue
            plabels = pods[0]["metadata"].get("labels") or {}
            selecting = [p for p in policies if matches((p.get("spec") or {}).get("podSelector") or {}, plabels)]
            for sp in svc["spec"].get("ports") or []:
                target = sp.get("targetPort", sp.get("port"))
                number = target if isinstance(target, int) else sp.get("port")
                name = target if isinstance(target, str) else sp.get("name")
                if not selecting or any(admits(p, labels, number, name) for p in selecting):
                    continue
                policy = selecting[0]
                pname = policy["metadata"]["name"]
                rules = (policy.get("spec") or {}).get("ingress") or []
                rule = {"from": [{"podSelector": {"matchLabels": {"app": labels["app"]}}}], "ports": [{"protocol": "TCP", "port": number}]}
                patch = [{"op": "add", "path": "/spec/ingress/-", "value": rule}] if rules else [{"op": "add", "path": "/spec/ingress", "value": [rule]}]
                why = f"it selects {host}'s pods and admits no pod of app={labels['app']}, whose environment dials {host} (port {number})"
                out.setdefault(f"NetworkPolicy/{pname}", Finding(f"NetworkPolicy/{pname}", why, ["patch", "networkpolicy", pname, "--type", "json", "-p", json.dumps(patch)]))
                break
    return list(out.values())


DETECTORS = [unadmitted_caller]
