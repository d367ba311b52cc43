// The MCP configuration an agent reads, in the formats agents read: Claude Code's `.mcp.json`
// (`{"mcpServers": {...}}`, passed with --mcp-config or found in the working folder), Codex's
// `config.toml` (`[mcp_servers.NAME]`, in $CODEX_HOME), and a plain JSON one for an agent of your
// own. All point at the same streamable HTTP URL; none holds a credential.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SERVER_NAME } from "./server.js";

export interface AgentConfig {
  /** The files written, by format. */
  files: { claude: string; codex: string; plain: string };
  /** What the agent's environment gets: the URL, the plain file, CODEX_HOME. */
  env: Record<string, string>;
}

export function writeAgentConfig(dir: string, url: string): AgentConfig {
  const claude = join(dir, ".mcp.json");
  const codexHome = join(dir, ".codex");
  const codex = join(codexHome, "config.toml");
  const plain = join(dir, "mcp.json");
  writeFileSync(
    claude,
    `${JSON.stringify({ mcpServers: { [SERVER_NAME]: { type: "http", url } } }, null, 2)}\n`,
  );
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(codex, `[mcp_servers.${SERVER_NAME}]\nurl = ${JSON.stringify(url)}\n`);
  writeFileSync(
    plain,
    `${JSON.stringify({ name: SERVER_NAME, transport: "streamable-http", url }, null, 2)}\n`,
  );
  return {
    files: { claude, codex, plain },
    env: { MCP_SERVER_URL: url, MCP_CONFIG_FILE: plain, CODEX_HOME: codexHome },
  };
}
