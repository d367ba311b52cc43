// Trajectories in ATIF (Harbor's Agent Trajectory Interchange Format, v1.4): see README.md.
export type { AtifStep, AtifTrajectory } from "./atif.js";
export { ATIF_VERSION } from "./atif.js";
export { toTrajectory } from "./build.js";
export type { RecordedCase } from "./recorded.js";
export { readTrajectory, TRAJECTORY_FILE, trajectoryOf, writeTrajectory } from "./write.js";
