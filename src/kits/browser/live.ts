// A browser vendor's live conformance run, the same for each: the switch checked before anything
// else, then the run's settings from the module's own COMPUTER_<ID>_* names, and the provider
// built from them. The environment is the caller's, handed in.
import { BROWSER_IMAGE } from "./labels.js";

type Env = Record<string, string | undefined>;

export interface LiveRun<Options, Provider> {
  /** The vendor's name in words, and its id as the switch spells it (BROWSERBASE). */
  name: string;
  id: string;
  settingsFromEnv(env: Env): Options;
  create(options: Options): Provider;
}

export function liveRun<Options, Provider>(run: LiveRun<Options, Provider>) {
  const liveSwitch = `AGENTRUN_COMPUTER_LIVE_${run.id}`;
  /** Why a live run may not start, or undefined: the switch first, then the settings. */
  const liveProblem = (env: Env): string | undefined => {
    if (env[liveSwitch] !== "1") return `a live ${run.name} run needs ${liveSwitch}=1 (it makes a browser at ${run.name}, on the key's account)`;
    try {
      run.settingsFromEnv(env);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
  return {
    liveProblem,
    createProvider(env: Env): Provider {
      const problem = liveProblem(env);
      if (problem) throw new Error(problem);
      return run.create(run.settingsFromEnv(env));
    },
    conformanceImage: () => BROWSER_IMAGE,
    conformanceNotes: [
      `${run.name}: one browser for the run (every browser case but the first shares it); nothing here ran against real ${run.name} unless ${liveSwitch}=1`,
    ],
  };
}
