// @ts-check
// An example of your own remediation method, loaded with
//   microremed run --remediate-method ./examples/method.mjs ...
// It implements the same one-method interface as SoloGen and ThinkRemed (README: "Your own
// method"), typed by the package's public face (`import("microremed")`): remediate(ctx) gets the diagnosis report and the roles of the case (model, executor,
// scorer, prober) and returns the attempts it made. This one asks no model: it restarts the
// root-cause Deployment (which replaces the faulty pod) and lets the harness verify the outcome.

/** @type {import("microremed").Method} */
export default {
  name: "restart-root-cause",
  maxAttempts: 1,
  async remediate(ctx) {
    const { namespace, service } = ctx.report;
    const playbook = [
      "- hosts: localhost",
      "  gather_facts: false",
      "  tasks:",
      `    - name: Restart ${service}`,
      `      ansible.builtin.shell: kubectl -n ${namespace} rollout restart deployment/${service} && kubectl -n ${namespace} rollout status deployment/${service} --timeout=600s`,
      "",
    ].join("\n");
    const execution = await ctx.executor.run(playbook, {
      caseDir: ctx.caseDir,
      name: "playbook-1",
      namespace,
      signal: ctx.signal,
    });
    return {
      attempts: [{ index: 1, playbook, execution, problems: execution.problems, probeRounds: 0 }],
      conversation: [],
      usage: {},
    };
  },
};
