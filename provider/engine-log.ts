// Words to the Pulumi engine against a resource's URN, so `pulumi up` shows them on that
// resource's line (and its --event-log holds them). The Node provider server sets up no engine
// client for create or read, so the plugin keeps its own, to the address the engine started it with.
import { credentials } from "@grpc/grpc-js";
import engineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import engineProto from "@pulumi/pulumi/proto/engine_pb.js";

/** Says one line about the resource at urn; never throws, never waits (a lost line is no failure). */
/** ephemeral: a status line the display shows while the step runs and does not keep (the event log still holds it). */
export type EngineLog = (urn: string, message: string, ephemeral?: boolean) => void;

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
  if (!address) return () => undefined;
  let client: InstanceType<typeof engineGrpc.EngineClient> | undefined;
  return (urn, message, ephemeral = false) => {
    client ??= new engineGrpc.EngineClient(address, credentials.createInsecure());
    const request = new engineProto.LogRequest();
    request.setSeverity(engineProto.LogSeverity.INFO);
    request.setMessage(message);
    request.setUrn(urn);
    request.setEphemeral(ephemeral);
    client.log(request, () => undefined);
  };
}
