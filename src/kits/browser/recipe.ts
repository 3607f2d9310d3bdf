// The browser's image recipe, one for every use: Debian's chromium on a Debian base (the set-up's
// own, as no registry answers here), socat (a CDP connection's one way in, through the daemon),
// one font and a user 1000. Docker's browser computers and the browser vendors' fakes build it,
// tagged by its hash (ensureImage), so it is built once.

/** The recipe on a base image (FROM base). Its text is its tag: change it and every user builds anew. */
export function browserRecipe(base: string): string {
  return [
    `FROM ${base}`,
    "RUN apt-get update \\",
    " && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium socat fonts-dejavu-core \\",
    " && rm -rf /var/lib/apt/lists/* \\",
    " && useradd -u 1000 -m -d /home/browser -s /usr/sbin/nologin browser",
    "USER 1000:1000",
    "",
  ].join("\n");
}

/** What the recipe holds, in words, for a caller's "preparing" row. */
export const BROWSER_RECIPE_HAS = "Debian's chromium and socat";
