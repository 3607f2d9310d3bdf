// health: the daemon answers, and what it says it is matches what the provider declares.
import { coreGroups, kindRefusals } from "../../contract/kinds.js";
import { PROVIDER_GROUPS } from "../../daemon/protocol.js";
import { call, callFails, check, shown } from "../assert.js";
import { conformanceCase } from "../case.js";

export const healthCases = [
  conformanceCase("health.hello", "core", {}, async (t) => {
    const hello = await call("hello", t.client.call("hello", { client: "agentrun-conformance" }, { signal: t.signal }));
    check(hello.version === t.provider.version, `hello reports version ${hello.version}; the provider's is ${t.provider.version}`);
    check(hello.os.length > 0 && hello.arch.length > 0, `hello names no os or arch: ${shown(hello)}`);
    check(Array.isArray(hello.groups), `hello's groups are not a list: ${shown(hello)}`);
  }),

  conformanceCase("health.ping", "core", {}, async (t) => {
    const pong = await call("ping", t.client.call("ping", {}, { signal: t.signal }));
    check(Object.keys(pong).length === 0, `ping answered ${shown(pong)}, not {}`);
  }),

  conformanceCase("health.unknown-method", "core", {}, async (t) => {
    await callFails("the method agentrun.no-such-method", t.client.request("agentrun.no-such-method", {}, { signal: t.signal }), [
      "unsupported",
      "invalid",
      "not_found",
    ]);
    // The connection goes on after the error.
    await call("ping after an unknown method", t.client.call("ping", {}, { signal: t.signal }));
  }),

  conformanceCase("health.kind-consistent", "core", {}, async (t) => {
    const caps = t.capabilities;
    const problems = [...kindRefusals(caps)];
    if (t.hello.kind !== caps.kind) problems.push(`hello's kind is ${t.hello.kind}; the provider declares ${caps.kind}`);
    if (t.hello.os !== caps.os) problems.push(`hello's os is ${t.hello.os}; the provider declares ${caps.os}`);
    const declared = caps.groups.filter((g) => !(PROVIDER_GROUPS as readonly string[]).includes(g)).sort();
    const said = [...t.hello.groups].sort();
    if (shown(declared) !== shown(said))
      problems.push(`hello's groups are ${said.join(", ") || "none"}; the provider declares ${declared.join(", ") || "none"}`);
    for (const need of coreGroups(caps.kind, caps.daemon)) {
      if (need !== "network:none" && need !== "vendor-agent" && !t.hello.groups.includes(need) && !(PROVIDER_GROUPS as readonly string[]).includes(need)) {
        problems.push(`a ${caps.kind} computer's hello must declare ${need}`);
      }
    }
    check(problems.length === 0, problems.join("; "));
  }),
];
