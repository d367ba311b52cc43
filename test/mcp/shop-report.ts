// The diagnosis report the MCP server tests serve: a case in the namespace "shop" of a
// Simple-Micro-like system, written as `microremed mcp --report` reads it.
import { write } from "../cli/cli-helpers.js";

/** Writes report.json into dir and returns its path. */
export function shopReport(dir: string): string {
  return write(
    dir,
    "report.json",
    JSON.stringify({
      env: "simple-micro",
      namespace: "shop",
      service: "cart",
      category: "pod failure",
      runtimeContext: "pods: cart",
      inventory: "localhost ansible_connection=local",
    }),
  );
}
