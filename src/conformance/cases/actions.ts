// input.actions as the input cases send it, on a desktop or a phone alike.
import type { Action, InputActionsResult } from "../../daemon/protocol.js";
import { call, check, shown } from "../assert.js";
import type { CaseContext } from "../case.js";

export async function act(t: CaseContext, actions: Action[]): Promise<InputActionsResult> {
  return call("input.actions", t.client.call("input.actions", { actions }, { signal: t.signal }));
}

/** A batch that must be done whole. */
export async function actOk(t: CaseContext, actions: Action[]): Promise<void> {
  const done = await act(t, actions);
  check(!done.failed && done.done === actions.length, `input.actions ${shown(actions)} answered ${shown(done)}`);
}

/** A batch whose second key is not in the key table: refused whole, as done 0 with its index and kind. */
export async function sendUnknownKey(t: CaseContext): Promise<void> {
  const done = await act(t, [
    { type: "key", keys: ["a"] },
    { type: "key", keys: ["Hyper_Q"] },
  ]);
  check(
    done.done === 0 && done.failed?.index === 1 && done.failed.kind === "invalid",
    `a batch whose second key is Hyper_Q answered ${shown(done)}, not done 0 with failed.index 1, kind invalid`,
  );
}
