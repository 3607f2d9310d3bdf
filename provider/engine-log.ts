// Words to the Pulumi engine against a resource's URN, so `pulumi up` shows them on that
// resource's line (and its --event-log holds them). The Node provider server sets up no engine
// client for create or read, so the plugin keeps its own, to the address the engine started it with.
import { credentials } from "@grpc/grpc-js";
import engineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import engineProto from "@pulumi/pulumi/proto/engine_pb.js";

/**
 * Says one line about the resource at urn. ephemeral: a status line the display shows while the
 * step runs and does not keep (the event log still holds it). Settles once the engine has the
 * line or could not take it; never rejects (a lost line is no failure).
 */
export type EngineLog = (urn: string, message: string, ephemeral?: boolean) => Promise<void>;

/** How long a step's end waits for its last lines to reach the engine. */
const LINES_BOUND_MS = 2_000;

/** The engine's address among the plugin's arguments: the first that is not a flag, as Pulumi's own parser reads them. */
export function engineAddress(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--tracing") i += 1;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/** A log to the engine at address; with none (a plugin started for its schema), a log that says nothing. */
export function engineLog(address: string | undefined): EngineLog {
  if (!address) return async () => undefined;
  let client: InstanceType<typeof engineGrpc.EngineClient> | undefined;
  return (urn, message, ephemeral = false) => {
    client ??= new engineGrpc.EngineClient(address, credentials.createInsecure());
    const request = new engineProto.LogRequest();
    request.setSeverity(engineProto.LogSeverity.INFO);
    request.setMessage(message);
    request.setUrn(urn);
    request.setEphemeral(ephemeral);
    return new Promise((resolve) => client!.log(request, () => resolve()));
  };
}

/**
 * A step's lines: said as status on the step's resource (say) or kept among its diagnostics
 * (tell), and waited for (within a bound) when the step ends. The engine drops a line that comes
 * after its operation closed its event stream, and a refresh can close it right after a read that
 * answered in milliseconds, with the read's first line (and the channel the plugin opens for it)
 * still on the way.
 */
export function stepLines(log: EngineLog, urn: string): { say: (message: string) => void; tell: (message: string) => void; landed(): Promise<void> } {
  const pending = new Set<Promise<void>>();
  const send = (message: string, ephemeral: boolean) => {
    const sent = log(urn, message, ephemeral);
    pending.add(sent);
    void sent.then(() => pending.delete(sent));
  };
  return {
    say: (message) => send(message, true),
    tell: (message) => send(message, false),
    landed: async () => {
      if (pending.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, LINES_BOUND_MS)));
      await Promise.race([Promise.allSettled([...pending]), bound]);
      clearTimeout(timer);
    },
  };
}
