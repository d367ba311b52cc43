# The incident oracle's detector for a replica left running with an old value (docs/incident-tier.md,
# template-stale-replica). It reads only what the case's identity reads and returns Findings;
# incident-fix.py runs it with its own.
#   config_stale  a container takes variables from a ConfigMap (configMapKeyRef, envFrom's
#                 configMapRef) once, when it starts: a pod started before the ConfigMap's last
#                 write may hold another value than the key says now, while its siblings started
#                 after it hold the new one. It compares each running container's environment
#                 (read through exec, /proc/1/environ) with the ConfigMap's data now, and restarts
#                 the Deployment whose pods disagree (a rollout: every pod reads the key again).
#                 Containers started after the ConfigMap's last write (its managedFields' times)
#                 are not read: they hold its current data. Nothing is written to the ConfigMap:
#                 what it says now is what the other pods run with.
from started import Finding, items, selects, started_at, started_env


def configmaps():
    """Each ConfigMap's data and the time of its last write (the newest managedFields entry)."""
    out = {}
    for c in items("configmaps"):
        times = [m.get("time") for m in c["metadata"].get("managedFields") or [] if m.get("time")]
        out[c["metadata"]["name"]] = (c.get("data") or {}, max(times) if times else None)
    return out


def from_configmaps(container, known):
    """The variables a container takes from ConfigMaps: name -> (configmap, key)."""
    out = {}
    for src in container.get("envFrom") or []:
        ref = src.get("configMapRef")
        if ref and ref.get("name") in known:
            for key in known[ref["name"]][0]:
                out[f"{src.get('prefix') or ''}{key}"] = (ref["name"], key)
    for e in container.get("env") or []:
        ref = (e.get("valueFrom") or {}).get("configMapKeyRef")
        if ref and ref.get("name") in known:
            out[e["name"]] = (ref["name"], ref.get("key"))
        else:
            out.pop(e["name"], None)  # a later entry of the same name wins
    return out


def takes_config(c):
    return any(s.get("configMapRef") for s in c.get("envFrom") or []) or any(
        "configMapKeyRef" in (e.get("valueFrom") or {}) for e in c.get("env") or []
    )


def config_stale(st):
    """A Deployment with a running container that started with another value than its ConfigMap holds now."""
    known = None
    out = []
    for d in st["deployments"]:
        spec = d["spec"]["template"]["spec"]
        if not any(takes_config(c) for c in spec.get("containers") or []):
            continue
        known = configmaps() if known is None else known
        sel = d["spec"].get("selector", {}).get("matchLabels") or {}
        stale = []
        for p in st["pods"]:
            if p.get("status", {}).get("phase") != "Running" or p["metadata"].get("deletionTimestamp"):
                continue
            if not selects(sel, p["metadata"].get("labels") or {}):
                continue
            for c in p["spec"].get("containers") or []:
                wanted = from_configmaps(c, known)
                if not wanted:
                    continue
                begun = started_at(p, c["name"])
                written = max((known[m][1] or "" for m, _ in wanted.values()), default="")
                if begun and written and begun > written:
                    continue  # started after the ConfigMaps' last write: it read their current data
                env = started_env(p["metadata"]["name"], c["name"])
                if env is None:
                    continue
                for var, (cname, key) in sorted(wanted.items()):
                    now = known[cname][0].get(key)
                    if var in env and now is not None and env[var] != now:
                        stale.append(f"{p['metadata']['name']}/{c['name']} runs {var}={env[var]}; ConfigMap {cname} says {now} since it started")
        if stale:
            name = d["metadata"]["name"]
            out.append(Finding(f"Deployment/{name}", "; ".join(sorted(set(stale))), ["rollout", "restart", f"deployment/{name}"]))
    return out


DETECTORS = [config_stale]
