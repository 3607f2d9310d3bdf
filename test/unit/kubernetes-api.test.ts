// The Kubernetes API client's connections: calls and execs share one TLS context and pool of
// kept-alive connections (a fleet's creates made a context and a handshake for every exec), and
// certificate data the TLS library refuses is a result naming the kubeconfig, never a throw.
import { afterEach, expect, it } from "vitest";
import { KubeApi } from "../../src/kubernetes/api.js";
import { openExec } from "../../src/kubernetes/exec.js";
import { tlsStandIn, type TlsStandIn } from "../support/tls-stand-in.js";

let standIn: TlsStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

it("asks for an exec after a call on the call's kept-alive connection: no new handshake", async () => {
  standIn = await tlsStandIn((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"kind":"Namespace"}'));
  const api = new KubeApi({ server: standIn.url, ca: standIn.ca });
  expect(await api.call("/api/v1/namespaces/default", "reading the namespace", { ms: 5000 })).toEqual({ ok: true, value: { kind: "Namespace" } });
  // The stand-in refuses the upgrade; the exec's connection is what is counted.
  const exec = await openExec(api, { namespace: "default", pod: "computer-000000000000", container: "computer" }, ["true"], { stdin: false, ms: 5000 });
  expect(exec.ok).toBe(false);
  expect(standIn.connections()).toBe(1);
});

it("refuses a client certificate the TLS library cannot read in words naming the kubeconfig, asking nothing", async () => {
  let asked = 0;
  standIn = await tlsStandIn((_req, res) => {
    asked += 1;
    res.writeHead(200).end("{}");
  });
  const api = new KubeApi({ server: standIn.url, ca: standIn.ca, cert: "not a certificate", key: "not a key" });
  const read = await api.call("/api/v1/namespaces/default", "reading the namespace", { ms: 5000 });
  expect(read).toMatchObject({ ok: false, error: { code: "invalid", field: "kubeconfig" } });
  expect(read.ok ? "" : read.error.message).toMatch(/^the kubeconfig's certificate data could not be used: /);
  expect(asked).toBe(0);
});
