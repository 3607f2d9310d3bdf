// The provider the plugin's entry (main.ts) makes at the first call that needs one, and the library
// behind it. One module, so the build can bundle it whole (bundle.ts): main.ts takes the bundle when
// the build made one and this module as compiled otherwise. Its modules run at the first call that
// needs the provider, as they did when each was imported then.

/** The provider, its modules loaded now: the stack's agentrun config read from PULUMI_CONFIG (see main.ts). */
export async function provider(opts: { version: string; schema: string; args: string[] }) {
  const [{ settingsFrom }, { engineAddress, engineLog }, { makeProvider }] = await Promise.all([
    import("./config.js"),
    import("./engine-log.js"),
    import("./plugin.js"),
  ]);
  const test = process.env.AGENTRUN_COMPUTER_TEST === "1";
  const settings = settingsFrom(process.env.PULUMI_CONFIG, { test });
  const checkKeys = !(test && process.env.AGENTRUN_COMPUTER_TEST_KEYS_UNCHECKED === "1");
  return makeProvider({ version: opts.version, schema: opts.schema, settings, checkKeys, log: engineLog(engineAddress(opts.args)) });
}
