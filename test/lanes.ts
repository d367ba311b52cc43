// Which lane a test file runs in. `npm test` (vitest.config.ts) is what a developer runs after
// every change and must finish in 5 minutes on 2 cores, type-check included; these files are
// sweeps over every failure type, long end-to-end runs through the CLI (each `microremed run`
// starts a cluster, deploys, injects, runs a method at the method's speed and restores) and the
// slowest client and workload walks, so they run in the second CI lane (`npm run test:tiers`,
// vitest.tiers.config.ts) beside the whole tiers. Run them by hand after changing what they cover
// (the embedded cluster's workloads and chaos, the remediation path, the CLI's run flags and
// records, --parallel): `npx vitest run <file>`.
export const LONG_LANE = [
  // Online-Boutique under a USERS surge and a heap let grow past its limit, minutes of cluster time
  "test/sim/workloads/load-boutique-kubectl.test.ts",
  // every reference failure, fixed and not fixed as an operator would try (46 cases)
  "test/sim/workloads/remediation-table.test.ts",
  // every reference failure as seen from inside Online-Boutique's and Train-Ticket's pods
  "test/sim/workloads/failures-matrix-online-boutique.test.ts",
  "test/sim/workloads/failures-matrix-train-ticket.test.ts",
  // and Simple-Micro's (about 24 s)
  "test/sim/workloads/failures-matrix-simple-micro.test.ts",
  // kubernetes.core's integration targets through ansible-playbook
  "test/sim/clients/kubernetes-core-targets.test.ts",
  // a serial run and two parallel ones of the same six cases
  "test/cli/parallel.test.ts",
  // three cases at speed 60, each reading the host's clock against the cluster's
  "test/cli/rebase-run.test.ts",
  // the expert tier's fixes with kubernetes.core, and a restart that does not fix them
  "test/cli/expert-fixes.test.ts",
  // the symptom-level oracle on every reference type
  "test/cli/symptom-every-type.test.ts",
  // the runbook baseline through the CLI: what its blind steps repair and what they do not
  "test/cli/runbook.test.ts",
  // every report level through `run`, oracle, noop and agents, and the background noise (5 runs)
  "test/cli/report-levels.test.ts",
  // every reason a failed case can have, one `run` each (8 runs)
  "test/cli/reasons-run.test.ts",
  // module methods, cmd: agents, broken agents, --trials and --shard through `run`
  "test/cli/extensions.test.ts",
  // every flag of `run`, against `microremed sim` and the embedded cluster
  "test/cli/flags.test.ts",
  // errors of the run (provider outages, a missing ansible-playbook) through `run`
  "test/cli/run-errors.test.ts",
  // `env init` and a run on a system from a folder
  "test/cli/env-system.test.ts",
  // the single-step commands refused outside MicroRemed's namespaces (16 CLI calls)
  "test/cli/namespaces.test.ts",
  // SIGINT mid-case, and a resume after a cut-off case
  "test/cli/interrupt.test.ts",
  "test/cli/resume.test.ts",
  // `run` and `doctor` where bubblewrap cannot run
  "test/sandbox/cli.test.ts",
  // ThinkRemed's scenarios and --base-url, one `run` each
  "test/methods/thinkremed-cli.test.ts",
  "test/llm/base-url-cli.test.ts",
  // each expert type that leaves its target Ready, judged by its own symptom (one namespace each)
  "test/verify/calls-kubectl.test.ts",
  // kubernetes.core's drain, CRD and Job flows through ansible-playbook
  "test/sim/clients/drain-ansible.test.ts",
  "test/sim/controllers/jobs-ansible.test.ts",
  // `npm pack`, installed into an empty folder, runs a case from there
  "test/cli/pack.test.ts",
  // Online-Boutique's and Train-Ticket's entry routes, and where hello-service's calls go
  "test/sim/workloads/boutique-routes-kubectl.test.ts",
  "test/sim/workloads/trainticket-routes-kubectl.test.ts",
  "test/sim/workloads/addresses-kubectl.test.ts",
  // every failure type of Simple-Micro as a Harbor task: oracle 1, noop 0 (export.test.ts: one case)
  "test/harbor/export-every-type.test.ts",
  // `run --trials` and `--shard` through the CLI, and `show`/`diff` over recorded runs
  "test/cli/trials-shards.test.ts",
  "test/cli/show-diff.test.ts",
  // pods evicted, a container's faults from inside it, and pods the scheduler cannot place, through kubectl
  "test/sim/controllers/eviction-kubectl.test.ts",
  "test/sim/userland/faults-kubectl.test.ts",
  "test/sim/workloads/unschedulable-kubectl.test.ts",
  // a case run after another starts from the same namespace (three cases through the CLI)
  "test/cli/cases-start-equal.test.ts",
  // kubectl in a pod against the host's kubectl, verb by verb (about 30 s)
  "test/sim/commands/kubectl-incluster-verbs.test.ts",
  // the incident tier's simulator walks through kubectl: a config agent and a CronJob acting on
  // the API, Train-Ticket's gateway timeouts and retry storm, the HPA's syncs, a lived-in
  // namespace's history and logs, an incident's steps and their restore (10 to 25 s each)
  "test/sim/commands/kubectl-incluster.test.ts",
  "test/sim/workloads/load-trainticket-kubectl.test.ts",
  "test/sim/controllers/hpa-kubectl.test.ts",
  "test/sim/clients/lived-in.test.ts",
  "test/faults/incident-steps.test.ts",
  // CPU throttling and probes seen through kubectl, and kubectl's command matrix (about 20 s each)
  "test/sim/workloads/cpu-throttle-kubectl.test.ts",
  "test/sim/workloads/probes-kubectl.test.ts",
  "test/sim/clients/kubectl-matrix.test.ts",
  // every image family's root, WORKDIR and files through kubectl exec (three systems deployed, ~25 s)
  "test/sim/userland/image-trees-kubectl.test.ts",
  // Train-Ticket's -Xmx read from the command line, OOM-killed on a pinned clock (about 35 s)
  "test/sim/workloads/heap-cmdline-kubectl.test.ts",
  // Train-Ticket's MySQL reading its mounted option file at start (a deploy and three restarts)
  "test/sim/workloads/mysqld-options-kubectl.test.ts",
  // a datasource naming another MySQL server: Train-Ticket deployed, Access denied (about 36 s)
  "test/sim/workloads/wrong-store-kubectl.test.ts",
  // kept out of `npm test`'s 5 minutes on 2 cores (each 17 to 27 s): a Harbor task exported and
  // run, egress through the pods, Train-Ticket's deploy, an OOM-killed container through kubectl
  "test/harbor/export.test.ts",
  "test/sim/workloads/egress-kubectl.test.ts",
  "test/sim/workloads/train-ticket-deploy.test.ts",
  "test/sim/workloads/oom-limit-kubectl.test.ts",
  // and, for the same reason (15 to 27 s each): ansible-playbook against the embedded cluster,
  // every API resource kubectl lists, a store's checks through kubectl, restarts as the hold
  // counts them, and one clock read with kubectl after two crash loops (its re-base between cases
  // stays in npm test: test/sim/clients/rebase-clock.test.ts)
  "test/sim/clients/ansible.test.ts",
  "test/sim/api/api-resources-kubectl.test.ts",
  "test/verify/store-kubectl.test.ts",
  "test/verify/restarts.test.ts",
  "test/sim/clients/one-clock.test.ts",
];
