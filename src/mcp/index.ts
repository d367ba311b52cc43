// The MCP server's public face: the tools over one case, the server, its HTTP listener, the log
// of calls, and the configuration files agents read.
export { type AgentConfig, writeAgentConfig } from "./agent-config.js";
export { listenMcp, MCP_PATH, type McpListener } from "./listen.js";
export { CallLog, type McpCall } from "./record.js";
export { createMcpServer, SERVER_NAME } from "./server.js";
export { executionData, type McpCase, type Submission, TOOLS, writeArgv } from "./tools.js";
