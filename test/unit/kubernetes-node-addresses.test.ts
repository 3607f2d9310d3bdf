// The nodes' own addresses an allowlisted Pod's proxy refuses (src/kubernetes/node-addresses.ts):
// from the Node list as the API server answers it, joined with egress.hostAddresses; the setting
// alone, said in words, when the credentials may not list nodes.
import { describe, expect, it } from "vitest";
import { fail, ok } from "../../src/daemon/result.js";
import { addressesOfNodes, nodeAddressesOf, type NodeList } from "../../src/kubernetes/node-addresses.js";

const node = (name: string, ...addresses: Array<[string, string]>) => ({
  metadata: { name },
  status: { addresses: addresses.map(([type, address]) => ({ type, address })) },
});

const LIST: NodeList = {
  items: [
    node("a", ["InternalIP", "10.0.0.4"], ["ExternalIP", "34.120.7.9"], ["Hostname", "a"], ["InternalDNS", "a.cluster.example"]),
    node("b", ["InternalIP", "10.0.0.5"], ["ExternalIP", "2a00:1450::1"], ["ExternalIP", "52.14.0.20"]),
    node("c", ["ExternalIP", "::ffff:35.1.2.77"], ["InternalIP", "not-an-address"]),
  ],
};

describe("addressesOfNodes", () => {
  it("takes every InternalIP and ExternalIP, normalized, and skips names", () => {
    expect(addressesOfNodes(LIST).sort()).toEqual(["10.0.0.4", "10.0.0.5", "35.1.2.77", "52.14.0.20", "2a00:1450::1", "34.120.7.9"].sort());
  });

  it("reads an empty list, and a node with no status, as no address", () => {
    expect(addressesOfNodes({})).toEqual([]);
    expect(addressesOfNodes({ items: [{ metadata: { name: "x" } }] })).toEqual([]);
  });
});

describe("nodeAddressesOf", () => {
  const table = [
    {
      name: "the nodes' public addresses, the private ones being refused by the table already",
      listed: ok(LIST),
      setting: [],
      range: undefined,
      want: { addresses: ["2a00:1450::1", "34.120.7.9", "35.1.2.77", "52.14.0.20"] },
    },
    {
      name: "the setting beside them, once each",
      listed: ok(LIST),
      setting: ["34.120.7.9", "35.9.9.200"],
      range: undefined,
      want: { addresses: ["2a00:1450::1", "34.120.7.9", "35.1.2.77", "35.9.9.200", "52.14.0.20"] },
    },
    {
      name: "a private node address the test-only seam marks reachable",
      listed: ok(LIST),
      setting: [],
      range: "10.0.0.4/32",
      want: { addresses: ["10.0.0.4", "2a00:1450::1", "34.120.7.9", "35.1.2.77", "52.14.0.20"] },
    },
  ] as const;
  for (const row of table) {
    it(row.name, () => {
      expect(nodeAddressesOf(row.listed, row.setting, row.range)).toEqual(ok(row.want));
    });
  }

  it("takes the setting alone when the credentials may not list nodes, and says so", () => {
    const got = nodeAddressesOf(fail("refused", 'listing the nodes: nodes is forbidden: User "agent" cannot list resource "nodes"'), ["34.120.7.9"]);
    expect(got.ok && got.value.addresses).toEqual(["34.120.7.9"]);
    expect(got.ok && got.value.note).toMatch(/may not list nodes.*refuses the 1 in egress\.hostAddresses alone \(34\.120\.7\.9\)/);
  });

  it("says when neither the nodes nor the setting name any", () => {
    const got = nodeAddressesOf(fail("refused", "forbidden"), []);
    expect(got.ok && got.value).toEqual({ addresses: [], note: expect.stringMatching(/none of them \(egress\.hostAddresses is empty\)/) });
  });

  it("hands on any other failure: the API server down is no licence to refuse nothing", () => {
    const got = nodeAddressesOf(fail("unreachable", "listing the nodes: the API server at https://127.0.0.1:6443 could not be reached"), ["34.120.7.9"]);
    expect(got).toEqual(fail("unreachable", "reading the nodes' addresses: listing the nodes: the API server at https://127.0.0.1:6443 could not be reached"));
  });
});
