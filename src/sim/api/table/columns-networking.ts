// networking.k8s.io and discovery.k8s.io kinds, as pkg/printers/internalversion/printers.go
// prints them (printIngress, printIngressClass, printNetworkPolicy, printEndpointSlice).
import type { KObject } from "../../core/types.js";
import { since } from "./duration.js";
import { formatLabelSelector, str } from "./format.js";
import { AGE_COL, col, NAME_COL, type Printer } from "./types.js";

interface Ingress extends KObject {
  spec?: { ingressClassName?: string; rules?: { host?: string }[]; tls?: unknown[] };
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}

/** formatHosts: at most three hosts, "*" when no rule names one. */
function formatHosts(rules: { host?: string }[]): string {
  const max = 3;
  const list: string[] = [];
  let more = false;
  for (const r of rules) {
    if (list.length === max) more = true;
    if (!more && r.host) list.push(r.host);
  }
  if (list.length === 0) return "*";
  const ret = list.join(",");
  return more ? `${ret} + ${rules.length - max} more...` : ret;
}

/** ingressLoadBalancerStatusStringer, wide (the server prints with Wide: true): sorted, unique. */
function loadBalancer(o: Ingress): string {
  const set = new Set<string>();
  for (const i of o.status?.loadBalancer?.ingress ?? []) {
    if (i.ip) set.add(i.ip);
    else if (i.hostname) set.add(i.hostname);
  }
  return [...set].sort().join(",");
}

export const ingressPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "Class",
      "string",
      "The name of the IngressClass resource that should be used for additional configuration",
    ),
    col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
    col("Address", "string", "Address is a list containing ingress points for the load-balancer"),
    col("Ports", "string", "Ports of TLS configurations that open"),
    AGE_COL,
  ],
  cells(obj, { now }) {
    const o = obj as Ingress;
    return [
      o.metadata.name ?? "",
      o.spec?.ingressClassName ?? "<none>",
      formatHosts(o.spec?.rules ?? []),
      loadBalancer(o),
      (o.spec?.tls ?? []).length ? "80, 443" : "80",
      since(o.metadata.creationTimestamp, now),
    ];
  },
};

interface IngressClass extends KObject {
  spec?: { controller?: string; parameters?: { apiGroup?: string; kind?: string; name?: string } };
}

export const ingressClassPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Controller", "string", "Controller that is responsible for handling this class"),
    col("Parameters", "string", "A reference to a resource with additional parameters"),
    AGE_COL,
  ],
  cells(obj, { now }) {
    const o = obj as IngressClass;
    const p = o.spec?.parameters;
    const parameters = p ? `${str(p.kind)}${p.apiGroup ? `.${p.apiGroup}` : ""}/${str(p.name)}` : "<none>";
    return [
      o.metadata.name ?? "",
      str(o.spec?.controller),
      parameters,
      since(o.metadata.creationTimestamp, now),
    ];
  },
};

interface NetworkPolicy extends KObject {
  spec?: { podSelector?: unknown };
}

export const networkPolicyPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "Pod-Selector",
      "string",
      "Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.",
    ),
    AGE_COL,
  ],
  cells(obj, { now }) {
    const o = obj as NetworkPolicy;
    return [
      o.metadata.name ?? "",
      formatLabelSelector(o.spec?.podSelector),
      since(o.metadata.creationTimestamp, now),
    ];
  },
};

interface EndpointSlice extends KObject {
  addressType?: string;
  ports?: { name?: string; port?: number }[];
  endpoints?: { addresses?: string[] }[];
}

/** listWithMoreString: the first three, "+ N more...", "<unset>" when there are none. */
function withMore(all: string[]): string {
  const max = 3;
  const ret = all.slice(0, max).join(",");
  if (all.length > max) return `${ret} + ${all.length - max} more...`;
  return ret || "<unset>";
}

export const endpointSlicePrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "AddressType",
      "string",
      "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.",
    ),
    col(
      "Ports",
      "string",
      'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.',
    ),
    col(
      "Endpoints",
      "string",
      "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.",
    ),
    AGE_COL,
  ],
  cells(obj, { now }) {
    const o = obj as EndpointSlice;
    const ports = (o.ports ?? []).map((p) =>
      typeof p.port === "number" ? String(p.port) : p.name !== undefined ? p.name : "*",
    );
    const addresses = (o.endpoints ?? []).flatMap((e) => e.addresses ?? []);
    return [
      o.metadata.name ?? "",
      str(o.addressType),
      withMore(ports),
      withMore(addresses),
      since(o.metadata.creationTimestamp, now),
    ];
  },
};
