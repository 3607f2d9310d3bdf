// An image reference read as the registry a node would pull it from: host, repository, reference.
import { describe, expect, it } from "vitest";
import { imageAt } from "../../src/kubernetes/registry.js";

describe("imageAt", () => {
  it.each([
    ["debian", { host: "registry-1.docker.io", repository: "library/debian", reference: "latest" }],
    ["debian:bookworm-slim", { host: "registry-1.docker.io", repository: "library/debian", reference: "bookworm-slim" }],
    ["docker.io/library/debian:12", { host: "registry-1.docker.io", repository: "library/debian", reference: "12" }],
    ["someone/tool:1", { host: "registry-1.docker.io", repository: "someone/tool", reference: "1" }],
    ["10.209.255.100:5000/agentrun-base:abc", { host: "10.209.255.100:5000", repository: "agentrun-base", reference: "abc" }],
    ["localhost/x", { host: "localhost", repository: "x", reference: "latest" }],
    ["ghcr.io/org/team/img", { host: "ghcr.io", repository: "org/team/img", reference: "latest" }],
    [`reg.example:443/a/b@sha256:${"f".repeat(64)}`, { host: "reg.example:443", repository: "a/b", reference: `sha256:${"f".repeat(64)}` }],
    [`reg.example/a:1@sha256:${"f".repeat(64)}`, { host: "reg.example", repository: "a", reference: `sha256:${"f".repeat(64)}` }],
  ])("reads %s", (ref, want) => {
    expect(imageAt(ref)).toEqual(want);
  });

  it.each(["", "Upper/Case", "reg.example/", "a//b", "reg.example/../x"])("reads %j as no reference", (ref) => {
    expect(imageAt(ref)).toBeUndefined();
  });
});
