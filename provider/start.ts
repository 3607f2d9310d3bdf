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

/**
 * A preview's first call made ready without running it: the provider and the module of its
 * commonest type, the Computer (the Docker provider behind it), run as far as loading them. The
 * start cache is recorded over this (start-cache-record.ts), so the code these modules compile as
 * they load is cached too and not compiled again at each preview.
 */
export async function warm(opts: { version: string; schema: string }): Promise<void> {
  await provider({ ...opts, args: [] });
  const { resources } = await import("./plugin.js");
  await resources["agentrun:index:Computer"]?.();
}
