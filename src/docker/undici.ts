// undici's Pool with its request API, without the package's index: the index loads its fetch,
// cookies, WebSocket and mocks too, and with them Node's own undici, none of which an engine call
// uses. A process's first engine call loaded undici in 127-141 ms; these three modules take 61-71.
// undici is pinned (package.json), and test/docker/engine-load.test.ts holds the paths to it.
import type { Pool as PoolType } from "undici";
import api from "undici/lib/api/index.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import PoolClass from "undici/lib/dispatcher/pool.js";

// What the index does for every dispatcher: request, stream, pipeline, connect and upgrade.
Object.assign(Dispatcher.prototype, api);

export const Pool: typeof PoolType = PoolClass;
