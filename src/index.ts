// The library's public surface. Providers are reached through the registry (providers.ts),
// which loads each lazily; nothing here loads a provider or a vendor SDK.
export * from "./protocol.js";
export * from "./client.js";
export * from "./result.js";
export * from "./provider.js";
export * from "./mount.js";
export * from "./files.js";
export * from "./processes.js";
export * from "./labels.js";
export * from "./lifetime.js";
export * from "./kinds.js";
export * from "./actions.js";
export * from "./wait.js";
export * from "./redact.js";
export * from "./janitor.js";
export * from "./providers.js";
