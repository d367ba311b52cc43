// The diagnosis report's text is what a model reads; the built-in models read the namespace and
// the faults back from that text alone, so render and read must stay each other's inverse.
import { describe, expect, it } from "vitest";
import { type DiagnosisReport, readReport, renderReport, reportIn } from "../../src/diagnosis/report.js";

const base: DiagnosisReport = {
  env: "simple-micro",
  namespace: "shop",
  service: "cart",
  failure: "cpu-stress",
  category: "resource",
  title: "CPU saturation",
  runtimeContext: "$ kubectl get pods -n shop\ncart-1 1/1 Running\n",
  inventory: "[local]\nlocalhost\n",
};

describe("the diagnosis report's text", () => {
  it("names the system, namespace, service and failure, then the runtime context and the inventory", () => {
    const text = renderReport(base);
    expect(text.split("\n").slice(0, 5)).toEqual([
      "## Diagnosis report",
      "- System: simple-micro",
      "- Namespace: shop",
      "- Root-cause service: cart",
      "- Failure category: CPU saturation (cpu-stress; resource)",
    ]);
    expect(text).toContain("## Runtime context\n$ kubectl get pods -n shop\ncart-1 1/1 Running\n\n");
    expect(text.endsWith("## Ansible inventory (inventory.ini)\n[local]\nlocalhost")).toBe(true);
  });

  it("reads back the namespace and each fault, one or several", () => {
    expect(readReport(renderReport(base))).toEqual({
      namespace: "shop",
      faults: [{ failure: "cpu-stress", service: "cart" }],
    });
    const two = renderReport({
      ...base,
      service: "cart, checkout",
      failure: "cpu-stress, pod-fail",
      category: "resource, pod",
      title: "CPU saturation in cart; Pod failure in checkout",
    });
    expect(readReport(two)?.faults).toEqual([
      { failure: "cpu-stress", service: "cart" },
      { failure: "pod-fail", service: "checkout" },
    ]);
  });

  it("finds the report in a conversation, and nothing in one without it", () => {
    const text = renderReport(base);
    expect(reportIn([{ content: "You are an SRE." }, { content: `Fix this.\n\n${text}` }])?.namespace).toBe(
      "shop",
    );
    expect(reportIn([{ content: "- Namespace: shop" }])).toBeUndefined();
  });
});
