// One service's state in its namespace's traffic: its pods and endpoints, the load it receives
// and the latency and error rate it answers with. traffic.ts computes it; calls.ts reads it to
// say what a call along an edge sees.
import type { ServiceModel } from "../../context/catalog.js";
import type { Pod } from "../../core/objects.js";

export interface SvcState {
  model: ServiceModel;
  /** Pods of the workload that are not being deleted. */
  pods: Pod[];
  /** Ready pods: the Service's endpoints. */
  endpoints: Pod[];
  /** Endpoints that really answer. */
  serving: Pod[];
  /** Requests per second the Service receives. */
  rps: number;
  /** Requests per second a load source (e.g. Locust) sends, spread over its running pods. */
  sends: number;
  /** Of rps, the calls of a method it logs in words of its own (shippingservice's ShipOrder: steps.ts). */
  rpcRps: Map<string, number>;
  /** Mean time to serve a request, its calls included, and the share answered with an error. */
  latencyMs: number;
  failRate: number;
  /** The part of latencyMs the service spends itself (CPU, throttling, a stalled disk). */
  ownMs: number;
  /** Requests per second its serving pods can serve together (capacity.ts), and the part of
   * latencyMs a request waits for a worker (the curve below capacity, the queue at and past it). */
  capacity: number;
  queueMs: number;
}
