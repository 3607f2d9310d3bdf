// Daytona's JSON as zod schemas: every response the provider reads is held to one of these, so a
// field Daytona renames or drops is an error in words, never a guess.
import { z } from "zod";

const optionalString = z.string().nullish();

/** A sandbox as GET /sandbox/{id} and the listing return it (the fields the provider reads). */
export const Sandbox = z.object({
  id: z.string().min(1),
  name: z.string(),
  snapshot: optionalString,
  labels: z
    .record(z.string(), z.string())
    .nullish()
    .transform((l) => l ?? {}),
  public: z.boolean(),
  networkBlockAll: z.boolean().nullish(),
  networkAllowList: optionalString,
  domainAllowList: optionalString,
  outboundProxyUrl: optionalString,
  cpu: z.number(),
  gpu: z.number(),
  memory: z.number(),
  state: z.string().nullish(),
  desiredState: z.string().nullish(),
  errorReason: optionalString,
  autoStopInterval: z.number().nullish(),
  autoDeleteInterval: z.number().nullish(),
  autoDestroyAt: optionalString,
  volumes: z.array(z.unknown()).nullish(),
  sandboxClass: optionalString,
  kvm: z.boolean().nullish(),
  linkedSandboxId: optionalString,
  toolboxProxyUrl: optionalString,
  /** When Daytona made it (ISO 8601): a delete removes the owner's computers made before it. */
  createdAt: optionalString,
});
export type Sandbox = z.infer<typeof Sandbox>;

/** One page of GET /sandbox?labels=. */
export const SandboxPage = z.object({
  items: z.array(Sandbox),
  nextCursor: z.string().nullish(),
});
export type SandboxPage = z.infer<typeof SandboxPage>;

/** GET /sandbox/{id}/toolbox-proxy-url. */
export const ToolboxProxyUrl = z.object({ url: z.string().min(1) });

/** POST /process/execute. */
export const ExecuteResponse = z.object({ exitCode: z.number().int(), result: z.string() });
export type ExecuteResponse = z.infer<typeof ExecuteResponse>;

/** POST /process/session/{sessionId}/exec. */
export const SessionExecResponse = z.object({ cmdId: z.string().min(1) });

/** An error body: Daytona answers { message } (sometimes { error }). */
export const ErrorBody = z.object({ message: z.union([z.string(), z.array(z.string())]).optional(), error: z.string().optional() });

/** The request body of POST /sandbox, as the provider sends it. */
export interface CreateSandbox {
  name: string;
  snapshot?: string;
  labels: Record<string, string>;
  public: false;
  networkBlockAll: boolean;
  target?: string;
  ttlMinutes: number;
  autoStopInterval: number;
  autoDeleteInterval: number;
}

/** A snapshot as GET /snapshots/{idOrName} returns it (the fields the provider reads); size is GB, as Daytona reports it. */
export const SnapshotDto = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  state: z.string(),
  size: z.number().nullish(),
  errorReason: optionalString,
  createdAt: z.string(),
});
export type SnapshotDto = z.infer<typeof SnapshotDto>;

/** One page of GET /snapshots?page=&limit= (pages from 1). */
export const SnapshotPage = z.object({ items: z.array(SnapshotDto), totalPages: z.number().int() });
