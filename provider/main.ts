// The plugin's entry, started by the Pulumi engine through bin/pulumi-resource-agentrun.
// Its first line on stdout is its port, so nothing is printed before main() serves. It reads the
// stack's agentrun config once, here, from PULUMI_CONFIG (the one place the plugin reads the
// environment, with its test flag AGENTRUN_COMPUTER_TEST beside it); a plugin started just for its
// schema has none.
import { readFileSync } from "node:fs";
import { main } from "@pulumi/pulumi/provider/index.js";
import "./server-gaps.js";
import { settingsFrom } from "./config.js";
import { engineAddress, engineLog } from "./engine-log.js";
import { makeProvider } from "./plugin.js";

const root = new URL("../../", import.meta.url);
const schema = readFileSync(new URL("schema/schema.json", root), "utf8");
const { version } = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { version: string };

const args = process.argv.slice(2);
const settings = settingsFrom(process.env.PULUMI_CONFIG, { test: process.env.AGENTRUN_COMPUTER_TEST === "1" });
await main(makeProvider({ version, schema, settings, log: engineLog(engineAddress(args)) }), args);
