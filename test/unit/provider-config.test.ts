// The plugin's settings: the stack's agentrun config as the engine hands it (PULUMI_CONFIG).
import { describe, expect, test } from "vitest";
import { settingsFrom } from "../../provider/config.js";

describe("settingsFrom", () => {
  test("no config at all (the plugin started for its schema) is no error", () => {
    expect(settingsFrom(undefined)).toEqual({ ok: true, value: {} });
  });
  test("reads agentrun:docker as an object given as JSON text, namespaced or bare", () => {
    expect(settingsFrom(JSON.stringify({ "agentrun:docker": '{"user":"1000:1000"}' }))).toEqual({ ok: true, value: { docker: { user: "1000:1000" } } });
    expect(settingsFrom(JSON.stringify({ docker: '{"image":"x"}' }))).toEqual({ ok: true, value: { docker: { image: "x" } } });
  });
  test("ignores other packages' config", () => {
    expect(settingsFrom(JSON.stringify({ "aws:region": "x" }))).toEqual({ ok: true, value: {} });
  });
  test("refuses a setting it does not take, naming the key and never the value", () => {
    const r = settingsFrom(JSON.stringify({ "agentrun:docker": '{"apiKey":"sk-secret-value"}' }));
    expect(r).toEqual({ ok: false, message: expect.stringContaining("agentrun:docker") });
    expect(JSON.stringify(r)).not.toContain("sk-secret-value");
  });
  test("refuses text that is not JSON", () => {
    expect(settingsFrom("{")).toEqual({ ok: false, message: "the stack's agentrun config could not be read (PULUMI_CONFIG is not JSON)" });
  });
});

describe("agentrun:daytona", () => {
  test("reads the key, the API's URL, the target and the class", () => {
    const config = JSON.stringify({ "agentrun:daytona": '{"apiKey":"dtn_x","apiUrl":"http://127.0.0.1:1/api","target":"eu","class":"container"}' });
    expect(settingsFrom(config)).toEqual({
      ok: true,
      value: { daytona: { apiKey: "dtn_x", apiUrl: "http://127.0.0.1:1/api", target: "eu", class: "container" } },
    });
  });
  test("refuses a class Daytona does not have, naming the key and never the key's value", () => {
    const r = settingsFrom(JSON.stringify({ "agentrun:daytona": '{"apiKey":"dtn_secret_value","class":"windows"}' }));
    expect(r).toEqual({ ok: false, message: expect.stringContaining("agentrun:daytona.class") });
    expect(JSON.stringify(r)).not.toContain("dtn_secret_value");
  });
});
