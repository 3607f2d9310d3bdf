// The undici modules undici.ts loads by path, typed by the package's own declarations.
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";
  const PoolClass: typeof Pool;
  export default PoolClass;
}
declare module "undici/lib/dispatcher/dispatcher.js" {
  import type { Dispatcher } from "undici";
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
declare module "undici/lib/api/index.js" {
  import type { Dispatcher } from "undici";
  const api: Pick<Dispatcher, "request" | "stream" | "pipeline" | "connect" | "upgrade">;
  export default api;
}
