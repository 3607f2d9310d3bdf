// The Pulumi provider: dispatches the engine's calls to the resource modules by type token.
import type { Settings } from "./config.js";
import { typeOf, type Construct, type Context, type ResourceHandler } from "./resource.js";
import { vendors } from "./vendors.js";
import { inStackWords } from "./words.js";
import { type EngineLog, stepLines } from "./engine-log.js";
import type { FunctionHandler } from "./function.js";
import type { Props } from "./secrets.js";
import type { ServedProvider } from "./server.js";

/**
 * Every resource type and its module, loaded lazily: the plugin loads a resource's module (and
 * the library behind it) only when the engine first asks for that type.
 */
export const resources: Record<string, () => Promise<ResourceHandler>> = {
  "agentrun:index:Mount": async () => (await import("./resources/mount.js")).mount,
  "agentrun:index:Computer": async () => (await import("./resources/computer.js")).computer,
  "agentrun:index:RunEpoch": async () => (await import("./resources/run-epoch.js")).runEpoch,
  "agentrun:index:ComputerFiles": async () => (await import("./resources/computer-files.js")).computerFiles,
  "agentrun:index:ComputerCommand": async () => (await import("./resources/computer-command.js")).computerCommand,
  "agentrun:index:ComputerApp": async () => (await import("./resources/computer-app.js")).computerApp,
  "agentrun:index:EgressProxy": async () => (await import("./resources/egress-proxy.js")).egressProxy,
  "agentrun:index:WarmPool": async () => (await import("./resources/warm-pool.js")).warmPool,
  "agentrun:index:ComputerSnapshot": async () => (await import("./resources/computer-snapshot.js")).computerSnapshot,
};

/** Every component type and its construct, loaded lazily as the resources are. */
export const components: Record<string, () => Promise<Construct>> = {
  "agentrun:index:Fleet": async () => (await import("./resources/fleet.js")).fleet,
};

/** Every function (an invoke) and its module, loaded lazily as the resources are. */
export const functions: Record<string, () => Promise<FunctionHandler>> = {
  "agentrun:index:listComputers": async () => (await import("./functions/list-computers.js")).listComputers,
  "agentrun:index:sweep": async () => (await import("./functions/sweep.js")).sweep,
};

export function makeProvider(opts: {
  version: string;
  schema: string;
  settings: { ok: true; value: Settings } | { ok: false; message: string };
  /** Lines to the engine against a URN (progress on a resource's line); absent, none are said. */
  log?: EngineLog;
  /** A keyed vendor's connection test before its first use (default true; off for tests alone). */
  checkKeys?: boolean;
}): ServedProvider {
  const settings = opts.settings.ok ? opts.settings.value : {};
  const cancel = new AbortController();
  const opened = vendors(settings, { checkKeys: opts.checkKeys ?? true });
  const ctx: Context = { settings, vendor: opened, signal: cancel.signal };
  // A step's context: its URN, what it says goes on its resource's line, and the step ends once its
  // lines reached the engine (within a bound): the engine drops a line that comes after its operation ended.
  const at = async <T>(urn: string, step: (ctx: Context) => Promise<T>): Promise<T> => {
    if (!opts.log) return step({ ...ctx, urn });
    const lines = stepLines(opts.log, urn);
    try {
      return await step({ ...ctx, urn, say: lines.say, tell: lines.tell });
    } finally {
      await lines.landed();
    }
  };
  const handler = async (urn: string): Promise<ResourceHandler> => {
    // Bad config is refused where the user sees it: at the first resource that needs it.
    if (!opts.settings.ok) throw new Error(opts.settings.message);
    const type = typeOf(urn);
    const load = resources[type];
    if (!load) throw new Error(`agentrun has no resource type ${type}; it has ${Object.keys(resources).join(", ")}`);
    return load();
  };
  return {
    version: opts.version,
    getSchema: async () => opts.schema,
    check: async (urn, olds: Props, news: Props) => {
      if (!opts.settings.ok) return { failures: [{ property: "", reason: opts.settings.message }] };
      return (await handler(urn)).check({ ...ctx, urn }, olds ?? {}, news ?? {});
    },
    // A library refusal a stack's user meets is said in their terms (words.ts).
    diff: async (id, urn, olds: Props, news: Props) =>
      inStackWords(settings, async () => at(urn, async (c) => (await handler(urn)).diff(c, id, olds ?? {}, news ?? {}))),
    create: async (urn, inputs: Props) => inStackWords(settings, async () => at(urn, async (c) => (await handler(urn)).create(c, inputs ?? {}))),
    read: async (id: string, urn: string, props?: Props, inputs?: Props) =>
      inStackWords(settings, async () => at(urn, async (c) => (await handler(urn)).read(c, id, props ?? {}, inputs))),
    update: async (id, urn, olds: Props, news: Props) =>
      inStackWords(settings, async () => at(urn, async (c) => (await handler(urn)).update(c, id, olds ?? {}, news ?? {}))),
    preview: async (urn: string, news: Props, olds?: Props) => {
      const h = await handler(urn);
      return h.preview ? h.preview({ ...ctx, urn }, news, olds) : news;
    },
    delete: async (id, urn, props: Props) => inStackWords(settings, async () => at(urn, async (c) => (await handler(urn)).delete(c, id, props ?? {}))),
    invoke: async (token, inputs: Props) =>
      inStackWords(settings, async () => {
        if (!opts.settings.ok) throw new Error(opts.settings.message);
        const load = functions[token];
        if (!load) throw new Error(`agentrun has no function ${token}; it has ${Object.keys(functions).join(", ")}`);
        return (await load()).invoke(ctx, inputs ?? {});
      }),
    // A component's children are registered through the engine's monitor, which the server's
    // construct connects the runtime to before it calls this.
    construct: async (name, type, inputs, options) => {
      if (!opts.settings.ok) throw new Error(opts.settings.message);
      const load = components[type];
      if (!load) throw new Error(`agentrun has no component type ${type}; it has ${Object.keys(components).join(", ")}`);
      return (await load())(ctx, name, inputs, options);
    },
    // The engine's cancel (a second Ctrl-C) ends every vendor call in flight.
    cancel: async () => cancel.abort(new Error("the Pulumi engine cancelled the operation")),
    // The engine ends the plugin when its operation is over: what is still in flight is ended, and
    // each vendor's kept connections closed (an ssh engine's login would outlive the plugin).
    shutdown: async () => {
      cancel.abort(new Error("the Pulumi engine ended the plugin"));
      await opened.close();
    },
  };
}
