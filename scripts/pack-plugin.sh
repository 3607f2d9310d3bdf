#!/usr/bin/env bash
# The Pulumi plugin as Pulumi installs plugins: one tarball whose root holds the executable
# pulumi-resource-agentrun beside the installed package and its production dependencies, so
#   pulumi plugin install resource agentrun <version> --file <tarball>
# puts it in the plugin cache and a stack needs no plugins.providers.path. It runs on this
# machine's architecture's Node (node on PATH, as the package's own bin). Prints the tarball's path.
# Usage: bash scripts/pack-plugin.sh [out-dir]   (default: dist/)
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(cd "${1:-dist}" && pwd)"
version="$(node -p 'require("./package.json").version')"
case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "pack-plugin: no plugin for $(uname -m)" >&2; exit 1 ;; esac
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npm pack --silent --pack-destination "$work" >/dev/null
mkdir "$work/plugin"
cp "$work"/agentrun-computer-"$version".tgz "$work/plugin/package.tgz"
(
  cd "$work/plugin"
  printf '{"name":"pulumi-resource-agentrun","private":true,"dependencies":{"@agentrun/computer":"file:package.tgz"}}\n' > package.json
  # Its dependencies from npm's cache when it has them (a warm machine), else the registry.
  npm install --omit=dev --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null
  rm package.tgz package.json package-lock.json
  # Pulumi's unpacking takes files and folders: no hard link (a native addon's build has one) and
  # no symbolic link (npm's .bin folders).
  find . -type l -delete
  # The engine runs this; it hands over to the package's own start (its node flags, its folder).
  cat > pulumi-resource-agentrun <<'SH'
#!/bin/sh
here="$(cd "$(dirname "$0")" && pwd -P)"
exec "$here/node_modules/@agentrun/computer/provider/bin/pulumi-resource-agentrun" "$@"
SH
  chmod +x pulumi-resource-agentrun
)
tarball="$out/pulumi-resource-agentrun-v$version-linux-$arch.tar.gz"
tar --hard-dereference -czf "$tarball" -C "$work/plugin" .
echo "$tarball"
