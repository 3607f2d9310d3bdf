// A plugin context for calling resource handlers directly, as the plugin builds one.
import type { Settings } from "../../provider/config.js";
import type { Context } from "../../provider/resource.js";
import { vendors } from "../../provider/vendors.js";

export function testContext(settings: Settings = {}): Context {
  return { settings, vendor: vendors(settings), signal: new AbortController().signal };
}
