// The browser's image recipe, one for every use: Debian's chromium on a Debian base (the set-up's
// own, as no registry answers here), socat (a CDP connection's one way in, through the daemon),
// Xvfb (a desktop that asks for "chromium" runs it headful on its display), one font and a user
// 1000 whose home is /work. Docker's browser computers and desktops with Chromium, and the browser vendors' fakes,
// build it, tagged by its hash (ensureImage), so it is built once.
import { BROWSER_IMAGE, RECIPE_IMAGE_LABEL } from "./labels.js";

/** The recipe on a base image (FROM base). Its text is its tag: change it and every user builds anew. */
export function browserRecipe(base: string): string {
  return [
    `FROM ${base}`,
    "RUN apt-get update \\",
    " && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium socat xvfb fonts-dejavu-core \\",
    " && rm -rf /var/lib/apt/lists/* \\",
    // Its home is /work, as every Docker computer's is (the tmpfs the provider mounts there).
    " && useradd -u 1000 -M -d /work -s /usr/sbin/nologin browser",
    `LABEL ${RECIPE_IMAGE_LABEL}=${BROWSER_IMAGE}`,
    "USER 1000:1000",
    "",
  ].join("\n");
}

/** What the recipe holds, in words, for a caller's "preparing" row. */
export const BROWSER_RECIPE_HAS = "Debian's chromium, socat and Xvfb";
