// ModalSdk: the slice of Modal's JS SDK (npm modal 0.11.1) this provider calls, derived from the
// package's own classes, so tsc holds the provider and any fake to the SDK as published. Only
// types are imported: loading this module loads no SDK. A class with private fields is nominal,
// so each return is the Pick<> of its class rather than the class, which a fake can meet.
import type { App, AppService, ContainerProcess, Image, ImageService, ModalClient, Sandbox, SandboxService } from "modal";

/** An app as the provider uses it: its id, for create and list. */
export type ModalApp = Pick<App, "appId">;

/** An image: a registry tag, and a layer on top of it (daemonImage's COPY --from). */
export interface ModalImage extends Pick<Image, "imageId"> {
  dockerfileCommands(commands: string[], params?: Parameters<Image["dockerfileCommands"]>[1]): ModalImage;
}

/** An exec's process in binary mode: its stdin, stdout, stderr and exit. */
export type ModalProcess = Pick<ContainerProcess<Uint8Array>, "stdin" | "stdout" | "stderr" | "wait">;

type ExecParams = NonNullable<Parameters<Sandbox["exec"]>[1]>;

/** A sandbox: its id, tags, exec, poll, terminate, and its filesystem snapshot (an image by its id). */
export interface ModalSandbox extends Pick<Sandbox, "sandboxId" | "getTags" | "poll"> {
  exec(command: string[], params: ExecParams & { mode: "binary" }): Promise<ModalProcess>;
  terminate(): Promise<void>;
  snapshotFilesystem(params?: Parameters<Sandbox["snapshotFilesystem"]>[0]): Promise<Pick<Image, "imageId">>;
}

export type SandboxCreateParams = NonNullable<Parameters<SandboxService["create"]>[2]>;
export type SandboxListParams = NonNullable<Parameters<SandboxService["list"]>[0]>;

export interface ModalSdk {
  apps: { fromName(name: string, params?: Parameters<AppService["fromName"]>[1]): Promise<ModalApp> };
  images: {
    fromRegistry(tag: Parameters<ImageService["fromRegistry"]>[0]): ModalImage;
    /** An image by its id (a filesystem snapshot's); NotFoundError when Modal has none. */
    fromId(imageId: string): Promise<ModalImage>;
    delete(imageId: string): Promise<void>;
  };
  sandboxes: {
    create(app: ModalApp, image: ModalImage, params: SandboxCreateParams): Promise<ModalSandbox>;
    fromId(sandboxId: string): Promise<ModalSandbox>;
    list(params: SandboxListParams): AsyncIterable<ModalSandbox>;
  };
}

/** Compile-time proof that the real client is a ModalSdk (never called). */
export function asModalSdk(client: ModalClient): ModalSdk {
  return client;
}

/** The SDK's error names (errors.ts): the provider reads an error's name, never its class, so no SDK is loaded. */
export const MODAL_ERRORS = [
  "NotFoundError",
  "InvalidError",
  "ConflictError",
  "AlreadyExistsError",
  "TimeoutError",
  "InternalFailure",
  "ClientClosedError",
  "ResourceExhaustedError",
] as const;

/** True when a thrown value is the SDK's error of that name. */
export function isModalError(error: unknown, name: (typeof MODAL_ERRORS)[number]): boolean {
  return error instanceof Error && error.name === name;
}
