# MicroRemed's notification callback: one JSON line per task result (name, module, host, status,
# message, duration) appended to the file named by TASK_RESULTS_FILE, so the runner reads
# ansible's results as data instead of parsing its text output.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = """
    name: task_results
    type: notification
    short_description: write each task result as a JSON line for MicroRemed
    description:
      - Appends one JSON object per task result to the file in TASK_RESULTS_FILE.
    requirements:
      - enable in ansible.cfg or with ANSIBLE_CALLBACKS_ENABLED=task_results
"""

import ast
import json
import os
import re
import stat
import time

from ansible.plugins.callback import CallbackBase

MAX_MESSAGE = 2000


def text(value):
    return (value if isinstance(value, str) else json.dumps(value, default=str)).strip()


# the Python client's ApiException text carries the API's Status as a bytes literal
API_BODY = re.compile(r"HTTP response body: (b'(?:[^'\\]|\\.)*'|b\"(?:[^\"\\]|\\.)*\")")


def api_status(value):
    """The Kubernetes Status in a kubernetes.core error, as "Forbidden (403): <its message>"."""
    found = API_BODY.search(value)
    if not found:
        return None
    try:
        status = json.loads(ast.literal_eval(found.group(1)))
    except (ValueError, SyntaxError):
        return None
    if not isinstance(status, dict) or not status.get("message"):
        return None
    return "%s (%s): %s" % (status.get("reason", "Failure"), status.get("code", "?"), status["message"])


def message(result):
    for key in ("msg", "error"):
        if isinstance(result.get(key), str):
            compact = api_status(result[key])
            if compact:
                return compact[:MAX_MESSAGE]
    # a command's msg is only "non-zero return code"; what went wrong is in its stderr
    parts = [text(result[k]) for k in ("msg", "stderr") if result.get(k)]
    if parts:
        return ": ".join(parts)[:MAX_MESSAGE]
    for key in ("module_stderr", "exception"):
        if result.get(key):
            return text(result[key])[:MAX_MESSAGE]
    # a loop's message is the first failed item's
    for item in result.get("results", []) or []:
        if isinstance(item, dict) and item.get("failed"):
            return message(item)
    return ""


def plain_msg(result):
    value = result.get("msg")
    return value.strip()[:MAX_MESSAGE] if isinstance(value, str) else ""


def append(path, text):
    """Appends to a regular file only: a playbook may have left a link or a FIFO at the path."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError:
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "notification"
    CALLBACK_NAME = "task_results"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self.path = os.environ.get("TASK_RESULTS_FILE")
        self.started = {}

    def _start(self, task):
        self.started[task._uuid] = time.time()

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._start(task)

    def v2_playbook_on_handler_task_start(self, task):
        self._start(task)

    def _write(self, result, status):
        if not self.path:
            return
        task = result._task
        res = result._result or {}
        if status == "ok" and res.get("changed"):
            status = "changed"
        began = self.started.get(task._uuid, time.time())
        line = {
            "name": task.get_name(),
            "module": getattr(task, "resolved_action", None) or task.action,
            "host": result._host.get_name(),
            "status": status,
            "message": message(res) if status in ("failed", "unreachable") else plain_msg(res),
            "durationMs": int((time.time() - began) * 1000),
        }
        if status == "failed" and getattr(task, "ignore_errors", False):
            line["ignored"] = True
        append(self.path, json.dumps(line) + "\n")

    def v2_runner_on_ok(self, result):
        self._write(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._write(result, "failed")

    def v2_runner_on_skipped(self, result):
        self._write(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self._write(result, "unreachable")

    def v2_runner_on_async_failed(self, result):
        self._write(result, "failed")
