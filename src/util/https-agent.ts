// One agent for every request to a cluster. client-node makes an agent per request (so every
// request builds a TLS context and makes a new connection and handshake); the harness keeps one,
// with the TLS settings client-node chose, and keeps its connections open between requests.
import type http from "node:http";
import https from "node:https";

/**
 * A keep-alive agent with the settings of the agent client-node made for a request; client-node's
 * own when it is not a plain HTTPS agent (a proxy's).
 */
export function keepAliveAgent(made: http.Agent | undefined): http.Agent | undefined {
  const plain = made instanceof https.Agent && made.constructor === https.Agent;
  return plain
    ? new https.Agent({ ...(made as https.Agent & { options: https.AgentOptions }).options, keepAlive: true })
    : made;
}
