// The provider's own image for a Computer that names none, made ready at its create (Docker: its
// recipe, built once per machine and tagged by hash). What a person reads of it: the build on the
// resource's line while it runs; a pull only when it takes long enough to see, and never called
// done when it was not; and which base the image stands on, among the diagnostics, once per
// machine (a record under ~/.cache/agentrun-computer/said), not on every up.
import type { ComputerProvider } from "../../src/contract/provider.js";
import { orThrow } from "../../src/daemon/result.js";
import type { Context } from "../resource.js";
import { type Ticker, ticker } from "../progress.js";
import { readRecord, recordsOf, writeRecord } from "../owner-file.js";
import type { ComputerSpec } from "../../src/contract/provider.js";

/** A Computer's kind as the library's spec names it (a phone is an android machine). */
type Kind = "linux" | "desktop" | "browser" | "phone";
export const machineKindOf = (kind: Kind | undefined): ComputerSpec["kind"] => (kind === "phone" ? "android" : kind);

/** Where what is said once per machine is recorded. */
export const SAID = recordsOf("said");
// A pull that ends sooner (a registry that does not answer) is not worth a line.
const PULL_QUIET_MS = 1_000;

/** The providers that said which base their own image stands on: once per plugin, not once per computer of a fleet. */
const baseSaid = new WeakSet<ComputerProvider>();

/** Says it unless this machine has said it before (the words are the key), then records it. */
export async function onceOnThisMachine(words: string, say: (words: string) => void, dir = SAID): Promise<void> {
  if (await readRecord(words, dir, (v): v is true => v === true)) return;
  say(words);
  await writeRecord(words, dir, true).catch(() => undefined);
}

export async function defaultImage(
  provider: ComputerProvider,
  signal: AbortSignal,
  { say, tell }: Pick<Context, "say" | "tell">,
  kind?: Kind,
): Promise<string> {
  if (!provider.image) throw new Error(`the ${provider.id} provider has no image of its own: declare image`);
  // Said only when the provider builds or pulls: an image already there takes no time worth saying.
  let waiting: Ticker | undefined;
  let pullSoon: NodeJS.Timeout | undefined;
  let pulling: string | undefined;
  const quietPull = () => clearTimeout(pullSoon);
  const onWait = (making: "build" | "pull", tag: string) => {
    if (!say) return;
    quietPull();
    waiting?.stop();
    const what = `${making === "build" ? "building" : "pulling"} the computers' image ${tag} (once; later computers reuse it)`;
    waiting = undefined;
    pulling = making === "pull" ? tag : undefined;
    if (making === "build") waiting = ticker(say, what);
    else pullSoon = setTimeout(() => (waiting = ticker(say, what)), PULL_QUIET_MS);
  };
  const onStep = ({ step, of, line }: { step: number; of: number; line: string }) => waiting?.now(`step ${step} of ${of} (${line})`);
  let told: Promise<void> | undefined;
  const onBase = (base: { image: string; words: string }) => {
    quietPull();
    // The pull, if one was said, ended here: pulled, or not (another base stands in).
    waiting?.stop(pulling === undefined || pulling === base.image ? "done" : "not pulled");
    waiting = undefined;
    if (!tell || baseSaid.has(provider)) return;
    baseSaid.add(provider);
    told = onceOnThisMachine(`the ${provider.id} computers' own image stands on ${base.words}`, tell);
  };
  try {
    return orThrow(await provider.image({ signal, onWait, onStep, onBase, kind: machineKindOf(kind) }));
  } finally {
    quietPull();
    waiting?.stop();
    await told;
  }
}
