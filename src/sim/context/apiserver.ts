// What a program in a container reaches at the `kubernetes` Service (10.43.0.1:443): the cluster's
// own API server, the same request handling a client on the host gets (authentication as the
// bearer token, RBAC, admission, managedFields from the User-Agent). Implemented by cluster/ (it
// owns the server and the token signer) and handed in, as the kubelet's seams are.
import type { KObject } from "../core/types.js";

export interface ApiRequest {
  method: string;
  /** Path and query, e.g. /apis/apps/v1/namespaces/ns/deployments/x?fieldManager=kubectl-set */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface InClusterApi {
  /** One HTTPS request to the API server; rejects (code ECONNREFUSED) when it does not listen. */
  request(r: ApiRequest): Promise<ApiResponse>;
  /**
   * What the kubelet projects at /var/run/secrets/kubernetes.io/serviceaccount: a token the
   * TokenRequest API bound to the pod and its ServiceAccount, and the cluster CA; undefined when
   * the ServiceAccount does not exist.
   */
  projectedToken(pod: KObject): { token: string; ca: string } | undefined;
}
