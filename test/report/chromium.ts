// Headless Chromium (Debian's `chromium`) for the report tests: one run with its own profile, no
// network beyond the file, no GPU. Tests that need it skip when it is not installed.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

export const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);

export function chromium(args: string[]) {
  const profile = mkdtempSync(join(tmpdir(), "report-chromium-"));
  const flags = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
  ];
  return execa(CHROMIUM!, [...flags, ...args], { reject: false, timeout: 90_000 });
}
