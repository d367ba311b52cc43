// What the API server asks the rest of the simulation for: pod logs, exec sessions, metrics.
// Each is a one-method interface, so the kubelet and the failure model can be swapped or grown
// without touching the HTTP layer.
import type { KObject } from "../core/types.js";

export interface LogRequest {
  pod: KObject;
  container: string;
  tailLines?: number;
  sinceSeconds?: number;
  /** RFC 3339 (kubectl logs --since-time). */
  sinceTime?: string;
  previous?: boolean;
  timestamps?: boolean;
}

export interface LogSource {
  /** The lines a container has written so far (oldest first), and a way to follow new ones. */
  logs(req: LogRequest): { lines: string[]; follow?: (onLine: (line: string) => void) => () => void };
}

export interface ExecIO {
  stdin?: AsyncIterable<Buffer>;
  stdout(data: string | Buffer): void;
  stderr(data: string | Buffer): void;
  /** Resolved when the client goes away (kill long-running commands). */
  aborted: Promise<void>;
}

export interface ExecRequest {
  pod: KObject;
  container: string;
  command: string[];
  tty: boolean;
}

export interface ExecHandler {
  /** Run a command in a container; resolves to its exit code. */
  exec(req: ExecRequest, io: ExecIO): Promise<number>;
}

export interface MetricsSource {
  /** PodMetrics for the pods of a namespace (all namespaces when ns is undefined). */
  podMetrics(ns: string | undefined): KObject[];
  nodeMetrics(): KObject[];
}
