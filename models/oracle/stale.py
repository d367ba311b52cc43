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
from started import stale_starts


def config_stale(st):
    """A Deployment with a running container that started with another value than its ConfigMap holds now."""
    return stale_starts(st, "ConfigMap", lambda pod, var, source, was, now: f"{pod} runs {var}={was}; ConfigMap {source} says {now} since it started")


DETECTORS = [config_stale]
