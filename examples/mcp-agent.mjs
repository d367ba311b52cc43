// An example MCP agent, run with
//   microremed run --remediate-method "mcp:node examples/mcp-agent.mjs" ...
// A real MCP client (the official SDK's Client over streamable HTTP) that asks no model: it reads
// the diagnosis report through the server's get_report tool, looks at the pods with kubectl,
// restarts the root-cause Deployment with a playbook (run_playbook), and submits its diagnosis.
// The URL of the server is in MCP_SERVER_URL (also in the files .mcp.json, mcp.json and
// $CODEX_HOME/config.toml of its working folder); it runs in the sandbox as the case's identity.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.env.MCP_SERVER_URL;
if (!url) {
  console.error("MCP_SERVER_URL is not set: run me with --remediate-method mcp:...");
  process.exit(2);
}

const client = new Client({ name: "microremed-example-agent", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

/** A tool's text answer; a tool error ends the agent. */
async function call(name, args = {}) {
  const r = await client.callTool({ name, arguments: args });
  const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  console.error(`[${name}] ${text.split("\n")[0]}`);
  if (r.isError) throw new Error(`${name} failed: ${text}`);
  return text;
}

const { tools } = await client.listTools();
console.error(`tools: ${tools.map((t) => t.name).join(", ")}`);

const report = await call("get_report");
const field = (label) => new RegExp(`^- ${label}: (\\S+)`, "m").exec(report)?.[1];
const namespace = field("Namespace");
const service = field("Root-cause service");
if (!namespace || !service) throw new Error(`the report names no namespace or service:\n${report}`);

await call("kubectl", { command: `kubectl get pods -l app=${service} -o wide; kubectl get deployment ${service}` });

const playbook = [
  "- hosts: localhost",
  "  gather_facts: false",
  "  tasks:",
  `    - name: Restart ${service}`,
  `      ansible.builtin.command: kubectl -n ${namespace} rollout restart deployment/${service}`,
  `    - name: Wait for ${service}`,
  `      ansible.builtin.command: kubectl -n ${namespace} rollout status deployment/${service} --timeout=600s`,
  "",
].join("\n");
const result = JSON.parse(await call("run_playbook", { playbook }));
console.error(`playbook: ${result.ok ? "ok" : "failed"}; tasks: ${result.tasks.map((t) => t.status).join(", ")}`);

await call("submit", { service, cause: "its pod was failing; restarted the Deployment" });
await client.close();
