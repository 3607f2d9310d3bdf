// TLS material for an engine over TCP, made by openssl in a folder of the test's own: a CA, the
// engine's certificate for 127.0.0.1 signed by it, and a client's, each in the docker CLI's names
// (a client folder holds ca.pem, cert.pem and key.pem, as DOCKER_CERT_PATH does).
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";

export interface EngineCerts {
  /** The engine's: ca.pem, server-cert.pem, server-key.pem. */
  server: { ca: string; cert: string; key: string };
  /** A client folder the engine takes. */
  client: string;
}

const openssl = (cwd: string, ...args: string[]) => execa("openssl", args, { cwd });

/** A key and a certificate signed by the CA in caDir: cert.pem and key.pem in dir. */
export async function signed(caDir: string, dir: string, subject: string, extensions: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "key.pem", "-out", "req.pem", "-subj", subject);
  await writeFile(path.join(dir, "ext.cnf"), extensions);
  await openssl(
    dir,
    "x509",
    "-req",
    "-in",
    "req.pem",
    "-CA",
    path.join(caDir, "ca.pem"),
    "-CAkey",
    path.join(caDir, "ca-key.pem"),
    "-CAcreateserial",
    "-days",
    "1",
    "-out",
    "cert.pem",
    "-extfile",
    "ext.cnf",
  );
}

/** A CA of its own and a client folder signed by it (ca.pem, cert.pem, key.pem). */
export async function clientOf(dir: string, caDir?: string): Promise<string> {
  const authority = caDir ?? path.join(dir, "ca");
  if (!caDir) await makeCa(authority);
  const client = path.join(dir, "client");
  await signed(authority, client, "/CN=client", "extendedKeyUsage = clientAuth\n");
  await execa("cp", [path.join(authority, "ca.pem"), path.join(client, "ca.pem")]);
  return client;
}

/** A CA: ca.pem and ca-key.pem in dir. */
export async function makeCa(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    "ca-key.pem",
    "-out",
    "ca.pem",
    "-days",
    "1",
    "-subj",
    "/CN=agentrun test CA",
  );
}

/** The engine's certificates and one client the engine takes, all under dir. */
export async function engineCerts(dir: string): Promise<EngineCerts> {
  const authority = path.join(dir, "ca");
  await makeCa(authority);
  const server = path.join(dir, "server");
  await signed(authority, server, "/CN=127.0.0.1", "subjectAltName = IP:127.0.0.1\nextendedKeyUsage = serverAuth\n");
  return {
    server: { ca: path.join(authority, "ca.pem"), cert: path.join(server, "cert.pem"), key: path.join(server, "key.pem") },
    client: await clientOf(dir, authority),
  };
}
