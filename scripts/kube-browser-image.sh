#!/usr/bin/env bash
# The browser's image on the test cluster: the one browser recipe (src/kits/browser/recipe.ts)
# made ready on the Docker engine as the Docker browser makes it (tagged by the recipe's hash,
# built once), pushed to the cluster's registry (the one dist/kube.json's base image is in, which
# every node pulls from and this engine trusts), and named by digest in dist/kube-browser.json,
# which the Kubernetes conformance module and the kube tests give the provider's browser option.
# The set-up pushes it, not the provider: a Kubernetes provider has no Docker engine to build on,
# and a cluster's user pushes the recipe's image with their own tools. Run after kube-up.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
[ -f dist/kube.json ] || die "dist/kube.json is missing: start the test cluster first (bash scripts/kube-up.sh)"
registry="$(node -p 'require("./dist/kube.json").image.split("/")[0]')"
local_image="$(node --input-type=module -e '
import { createProvider } from "./dist/src/docker/conformance/module.js";
const made = await (await createProvider({}, { kind: "browser" })).image({ kind: "browser" });
if (!made.ok) { console.error(made.error.message); process.exit(1); }
console.log(made.value);
')" || die "the browser's image could not be made ready on the Docker engine"
# The recipe's hash is the tag on both sides: a new recipe is a new tag, an old one is never overwritten.
ref="$registry/agentrun-browser:${local_image#*:}"
docker tag "$local_image" "$ref"
digest="$(docker push "$ref" | awk '/digest: sha256:/ { print $3 }')"
[ -n "$digest" ] || die "docker push of $ref to the cluster's registry gave no digest"
node -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({ image: process.argv[2] }, null, 2) + "\n")' \
  dist/kube-browser.json "$registry/agentrun-browser@$digest"
say "the browser's image is $registry/agentrun-browser@$digest (dist/kube-browser.json)"
