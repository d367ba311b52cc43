// A playbook task that runs a built-in model's Python scripts (models/<folder>/) in the sandbox:
// each script written to a fresh folder of the sandbox's /tmp, then the command run there. The
// oracle and the runbook baseline act through it, as the case's identity, like any playbook.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../util/paths.js";

export function scriptTask(
  name: string,
  folder: string,
  files: readonly string[],
  command: string,
): Record<string, unknown> {
  const dir = join(packageRoot(), "models", folder);
  const written = files
    .map((f) => `cat > "$d/${f}" <<'PY'\n{% raw %}${readFileSync(join(dir, f), "utf8")}{% endraw %}\nPY\n`)
    .join("");
  return {
    name,
    // cmd: as one string (not split into key=value arguments); raw: not a Jinja template
    "ansible.builtin.shell": {
      cmd: `set -e\nd=$(mktemp -d)\n${written}${command}\n`,
      executable: "/bin/bash",
    },
  };
}
