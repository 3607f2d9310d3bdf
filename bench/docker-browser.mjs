// The Docker browser in the browser benches, beside the vendors' fakes: the provider (every
// computer a browser, Debian's Chromium in the provider's image) and the anchor, a bare `docker
// run` of the same image (the fakes' hardened Chromium container, its CDP relayed on a port
// published on 127.0.0.1: test/support/fake-chromium.ts) whose CDP URL is on that port. close()
// removes every bare container of this run by its label and closes the provider.
import { randomBytes } from "node:crypto";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { browserImage, removeChromium, removeLabelled, startChromium } = await import(join(ROOT, "dist", "test", "support", "fake-chromium.js"));
const { daemonPath } = await import(join(ROOT, "bench", "computer.mjs"));

/** The provider and its bare anchor for one bench run. */
export async function dockerBrowsers() {
  const image = await browserImage();
  const run = `agentrun.bench.docker-browser=${randomBytes(4).toString("hex")}`;
  const [key, value] = run.split("=");
  let n = 0;
  const docker = new DockerProvider({ daemonPath, browser: {} });
  return {
    provider: () => docker,
    /** A bare container of the image, up once its CDP answers: its URL on the published port, and its end. */
    bare: async () => {
      const name = `agentrun-bench-bare-${process.pid}-${(n += 1)}`;
      const c = await startChromium(name, image, { [key]: value });
      return { url: `ws://127.0.0.1:${c.port}${c.browserPath}`, end: () => removeChromium(name) };
    },
    close: async () => {
      await removeLabelled(run);
      await docker.close();
    },
  };
}
