// A snapshot's calls to the cluster's registry, by the distribution API: the base image's manifest
// (out of its index, for the nodes' architecture) and config read; its layers mounted from the base's
// repository into the snapshots' (a registry shares blobs, so nothing is copied); a blob uploaded
// whole; a manifest pushed, read and deleted. Each call bounded and under the caller's signal; a
// status other than the one asked for is a failure in words naming the registry and the call.
import { fail, ok, type Result } from "../daemon/result.js";
import { manifestPath, MANIFEST_TYPES, registryCall, type RegistryReach, type RegistryReply } from "./registry.js";
import { digestOf } from "../kits/image/snapshot-config.js";
import { type ImageManifest, isIndex, platformOf } from "./snapshot-image.js";

/** A registry's own error words (its errors[].code and message), else the status. */
function said(reply: RegistryReply): string {
  try {
    const body = JSON.parse(reply.body.toString("utf8")) as { errors?: Array<{ code?: string; message?: string }> };
    const first = body.errors?.[0];
    if (first) return `${first.code ?? "an error"}: ${(first.message ?? "").slice(0, 200)}`;
  } catch {
    // no JSON: the status says it
  }
  return `HTTP ${reply.status}`;
}

/** A reply held to the statuses wanted; else a failure naming what was being done. */
function expect(reply: Result<RegistryReply>, want: number[], what: string, host: string): Result<RegistryReply> {
  if (!reply.ok) return fail(reply.error.code, `${what}: ${reply.error.message}`);
  if (want.includes(reply.value.status)) return reply;
  const code = reply.value.status === 404 ? "not_found" : reply.value.status === 401 || reply.value.status === 403 ? "refused" : "failed";
  return fail(code, `${what}: the registry ${host} answered ${said(reply.value)}`);
}

function json<T>(reply: RegistryReply, what: string): Result<T> {
  try {
    return ok(JSON.parse(reply.body.toString("utf8")) as T);
  } catch {
    return fail("failed", `${what}: the registry's answer is not JSON`);
  }
}

/** A manifest by tag or digest: its bytes, its media type and its digest (the registry's, else its bytes'). */
async function getManifest(
  host: string,
  repository: string,
  reference: string,
  reach: RegistryReach,
): Promise<Result<{ body: Buffer; mediaType: string; digest: string }>> {
  const what = `reading ${host}/${repository}:${reference.slice(0, 80)}'s manifest`;
  const got = expect(await registryCall(host, manifestPath(repository, reference), reach, { headers: { accept: MANIFEST_TYPES } }), [200], what, host);
  if (!got.ok) return got;
  const parsed = json<{ mediaType?: string }>(got.value, what);
  if (!parsed.ok) return parsed;
  const mediaType = parsed.value.mediaType ?? String(got.value.headers["content-type"] ?? "").split(";")[0]!;
  const digest = String(got.value.headers["docker-content-digest"] ?? digestOf(got.value.body));
  return ok({ body: got.value.body, mediaType, digest });
}

/** The image's manifest for the architecture (out of its index when it has one), and its config. */
export async function readImage(
  host: string,
  repository: string,
  reference: string,
  arch: string,
  reach: RegistryReach,
): Promise<Result<{ manifest: ImageManifest; digest: string; config: Record<string, unknown> }>> {
  let got = await getManifest(host, repository, reference, reach);
  if (!got.ok) return got;
  if (isIndex(got.value.mediaType)) {
    const index = json<Parameters<typeof platformOf>[0]>({ status: 200, headers: {}, body: got.value.body }, "reading an index");
    const one = index.ok ? platformOf(index.value, arch) : undefined;
    if (!one) return fail("invalid", `the image ${host}/${repository}@${reference.slice(0, 80)} has no linux/${arch} image in its index`, { field: "image" });
    got = await getManifest(host, repository, one, reach);
    if (!got.ok) return got;
  }
  const manifest = json<ImageManifest>({ status: 200, headers: {}, body: got.value.body }, "reading a manifest");
  if (!manifest.ok) return manifest;
  manifest.value.mediaType ??= got.value.mediaType;
  const what = `reading the config of ${host}/${repository}@${got.value.digest}`;
  const blob = expect(await registryCall(host, `/v2/${repository}/blobs/${manifest.value.config?.digest}`, reach), [200], what, host);
  if (!blob.ok) return blob;
  const config = json<Record<string, unknown>>(blob.value, what);
  return config.ok ? ok({ manifest: manifest.value, digest: got.value.digest, config: config.value }) : config;
}

/** Whether a repository has the blob already. */
async function hasBlob(host: string, repository: string, digest: string, reach: RegistryReach): Promise<Result<boolean>> {
  const head = expect(
    await registryCall(host, `/v2/${repository}/blobs/${digest}`, reach, { method: "HEAD" }),
    [200, 404],
    `looking for ${digest} in ${host}/${repository}`,
    host,
  );
  return head.ok ? ok(head.value.status === 200) : head;
}

/** Where an upload goes on: the Location the registry gave, absolute. */
const locationOf = (host: string, reply: RegistryReply) => new URL(String(reply.headers.location ?? ""), `https://${host}`);

/**
 * Each blob the repository lacks, mounted from another of the same registry (cross-repository
 * mount: the registry links the blob it has, nothing is sent). A registry that will not mount it
 * starts an upload instead: that is cancelled, and the mount refused in words.
 */
export async function mountBlobs(host: string, from: string, to: string, digests: string[], reach: RegistryReach): Promise<Result<undefined>> {
  for (const digest of digests) {
    const has = await hasBlob(host, to, digest, reach);
    if (!has.ok) return has;
    if (has.value) continue;
    const query = `mount=${encodeURIComponent(digest)}&from=${encodeURIComponent(from)}`;
    const mounted = expect(
      await registryCall(host, `/v2/${to}/blobs/uploads/?${query}`, reach, { method: "POST" }),
      [201, 202],
      `mounting ${digest} from ${from} into ${to}`,
      host,
    );
    if (!mounted.ok) return mounted;
    if (mounted.value.status === 202) {
      await registryCall(
        host,
        locationOf(host, mounted.value).pathname + locationOf(host, mounted.value).search,
        { ...reach, signal: undefined },
        { method: "DELETE" },
      );
      return fail("unsupported", `the registry ${host} would not mount the layer ${digest} of ${from} into ${to} (it started an upload instead, cancelled)`);
    }
  }
  return ok();
}

/** A blob uploaded whole (one POST, one PUT with its digest), unless the repository has it. */
export async function pushBlob(host: string, repository: string, bytes: Buffer, reach: RegistryReach): Promise<Result<string>> {
  const digest = digestOf(bytes);
  const has = await hasBlob(host, repository, digest, reach);
  if (!has.ok) return has;
  if (has.value) return ok(digest);
  const what = `uploading ${digest} (${bytes.length} bytes) to ${host}/${repository}`;
  const started = expect(await registryCall(host, `/v2/${repository}/blobs/uploads/`, reach, { method: "POST" }), [202], what, host);
  if (!started.ok) return started;
  const at = locationOf(host, started.value);
  at.searchParams.set("digest", digest);
  const put = expect(
    await registryCall(host, at.pathname + at.search, reach, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: bytes }),
    [201],
    what,
    host,
  );
  return put.ok ? ok(digest) : put;
}

/** A manifest pushed under a reference (its digest, or a tag); the registry's digest of it. */
export async function pushManifest(
  host: string,
  repository: string,
  reference: string,
  manifest: { bytes: Buffer; mediaType: string; digest: string },
  reach: RegistryReach,
): Promise<Result<string>> {
  const put = expect(
    await registryCall(host, manifestPath(repository, reference), reach, {
      method: "PUT",
      headers: { "content-type": manifest.mediaType },
      body: manifest.bytes,
    }),
    [201],
    `pushing the snapshot's manifest to ${host}/${repository}`,
    host,
  );
  if (!put.ok) return put;
  const digest = String(put.value.headers["docker-content-digest"] ?? manifest.digest);
  return digest === manifest.digest
    ? ok(digest)
    : fail("failed", `the registry ${host} stored the snapshot's manifest as ${digest}, not its digest ${manifest.digest}`);
}

/** The digest a tag points at; undefined when the repository has no such tag. */
export async function tagged(host: string, repository: string, tag: string, reach: RegistryReach): Promise<Result<string | undefined>> {
  const head = expect(
    await registryCall(host, manifestPath(repository, tag), reach, { method: "HEAD", headers: { accept: MANIFEST_TYPES } }),
    [200, 404],
    `looking up ${host}/${repository}:${tag}`,
    host,
  );
  if (!head.ok) return head;
  return ok(head.value.status === 404 ? undefined : String(head.value.headers["docker-content-digest"] ?? "") || undefined);
}

/** A manifest deleted by digest (its tags with it); one gone is ok; a registry that refuses deletes says so. */
export async function deleteManifest(host: string, repository: string, digest: string, reach: RegistryReach): Promise<Result<undefined>> {
  const reply = await registryCall(host, manifestPath(repository, digest), reach, { method: "DELETE" });
  if (reply.ok && reply.value.status === 405)
    return fail(
      "unsupported",
      `the registry ${host} refuses deletes (${said(reply.value)}): its config's storage.delete.enabled is not true, so ${repository}@${digest} stays; enable deletes there, or remove it by hand`,
      { field: "image" },
    );
  const gone = expect(reply, [202, 404], `deleting ${host}/${repository}@${digest}`, host);
  return gone.ok ? ok() : gone;
}
