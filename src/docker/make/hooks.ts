// Docker's create as the one flow's hooks (src/contract/create.ts): check, prepare, adoption's
// lookups, run (make), the read-back (connect) and verify, and Docker's words for an abort at
// each step. The flow owns the order and the undo stack; each phase is its own file.
import type { CreateHooks, CreateStep } from "../../contract/create.js";
import type { CheckedSpec, ComputerSpec, SpecDefaults } from "../../contract/provider.js";
import type { Result } from "../../daemon/result.js";
import { dockerAdoption } from "../adopt.js";
import type { DockerContext } from "../context.js";
import { readComputer } from "../read.js";
import { prepare, type Prepared } from "./prepare.js";
import { type Made, run } from "./run.js";
import { type Opened, readBack, verify } from "./verify.js";

/** Docker's words for a create aborted at a step of the flow. */
function aborted(step: CreateStep, name: string | undefined): string {
  if (step === "make") return "create was aborted before the container was made; nothing was made";
  if (step === "connect") return `create was aborted after ${name} started; it was deleted`;
  if (step === "verify") return `create was aborted after its checks; ${name} was deleted`;
  return "create was aborted before anything was made";
}

/** The hooks of one create: check is the provider's, with the host once it has been read. */
export function dockerHooks(
  context: DockerContext,
  check: (spec: ComputerSpec) => Result<CheckedSpec>,
  defaults: SpecDefaults | undefined,
): CreateHooks<CheckedSpec, Made, Opened, Prepared> {
  return {
    check,
    prepare: (checked, options) => prepare(context, checked, options),
    adoption: dockerAdoption({ engine: context.engine, read: (by, options) => readComputer(context, by, options) }, defaults),
    make: (creation) => run(context, creation),
    connect: (creation, made) => readBack(context, creation, made),
    verify: (creation, made, opened) => verify(context, creation, made, opened),
    close: (opened) => opened.connection.close(),
    aborted,
  };
}
