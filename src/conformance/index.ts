// The conformance suite from code: run it, read its report, and the kind table the serve side
// shares. Loaded only when asked for (@agentrun/computer/conformance), never by the library's index.
export { runConformance, selectCases, casesOfRun, CONFORMANCE_LABEL, CASE_LABEL, type ConformanceOptions, type Progress } from "./runner.js";
export { formatReport, verdictLine } from "./format.js";
export { ConformanceReport, CaseResult, Cleanup, KindVerdict, coreVerdict } from "./report.js";
export { casesFor, kindCases, kindVerdict, settingKindOf, type KindName } from "./kind.js";
export { browserCases, conformanceCases } from "./cases/index.js";
export { conformanceCase, Skip, CASE_GROUPS, LEVELS, type CaseContext, type ConformanceCase, type Needs, type RunFolder, type MountFor } from "./case.js";
export { CaseFailure, check, must, mustFail, call, callFails, run, output } from "./assert.js";
