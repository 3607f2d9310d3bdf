#!/usr/bin/env bash
# Everything the main job needs, made once and reused: node modules, a Docker engine, computerd,
# the Pulumi CLI (built from Go modules), the base image, the TypeScript build, the computers' own
# image, side by side where one needs nothing of another; with --tests (as
# npm test runs it) the tests' own tools too: tmux, Xvfb, BusyBox, pip's wheel, adb, aapt and the
# phone's fixture app, the browser fakes' Chromium image and Docker Engine 28. Quiet when all is there; says what it does while it builds; every
# failure names the next step. Writes dist/toolchain.env (for shells) and dist/toolchain.json (for tests).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
t_all=$SECONDS
tests=0
case "${1:-}" in
  --tests) tests=1 ;;
  "") ;;
  *) die "usage: bash scripts/setup.sh [--tests]" ;;
esac

node_modules() {
  local want have
  want="$(sha256sum package-lock.json | cut -c1-16)"
  have="$(cat node_modules/.agentrun-lock 2>/dev/null || true)"
  [ "$want" = "$have" ] && return 10
  command -v npm >/dev/null || die "npm is not installed; install Node.js 20 and run this again"
  say "installing node modules (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error >&2 || die "npm ci failed; check that the npm registry answers"
  echo "$want" > node_modules/.agentrun-lock
}

typescript() {
  local newest
  newest="$(find src provider -name '*.ts' -newer dist/.tsc-stamp 2>/dev/null | head -n1 || true)"
  [ -f dist/.tsc-stamp ] && [ -z "$newest" ] && [ tsconfig.json -ot dist/.tsc-stamp ] && return 10
  say "compiling the TypeScript (tsc)"
  rm -rf dist/src dist/provider
  # package.json's build: tsc, the agentrun bin made executable, the provider's bundle
  # (provider/bundle.ts), the plugin's start cache recorded.
  npm run --silent build || die "the TypeScript build (npm run build) failed; fix the errors above"
  touch dist/.tsc-stamp
}

# A program from Debian, installed when missing: <command> <package>. tmux: the tests drive
# `agentrun shell` through a real terminal it holds (and resize it); Xvfb: the daemon's X11
# tests run against a real X server; BusyBox: Modal's entrypoint is tested under its sh, and a
# static busybox is the stand-in agent copied into a Modal fake's sandbox. adb: the phone
# harness speaks to the real adb server (Android platform tools), in front of a simulated phone.
# aapt, zipalign, apksigner (and Android's framework-res.apk, for aapt): they build the phone's
# fixture app, and the simulated phone reads an installed APK's manifest with aapt.
apt_tool() {
  command -v "$1" >/dev/null && return 10
  apt_install "$1" "$2"
}

# A file from Debian, installed when missing: <path pattern> <package>. pip's wheel: ComputerApp's
# requirements are tested offline, pip run from its own wheel inside a computer whose image has none.
# sshd: a remote Docker engine is tested through an sshd the test runs on 127.0.0.1 (its own config
# and keys, started and stopped by the test; the package's service is not started here).
# docker-registry: the default image's pull is tested against a registry the test runs on
# 127.0.0.1 (its own config and storage folder; the package's service is not started here).
apt_file() {
  compgen -G "$1" >/dev/null && return 10
  apt_install "$1" "$2"
}

apt_install() {
  [ "$(id -u)" = 0 ] || die "$1 is missing; run as root: apt-get install $2"
  say "installing $1 (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null \
    || { apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null; } \
    || die "apt-get install $2 failed"
}

# The Go builds need nothing of the rest, so they start first and run beside it; the images
# start as soon as the Docker engine (the base) and the TypeScript build (the computers' image,
# whose recipe is the provider's) are there. Side by side, a cold set-up takes about as long as
# the Pulumi CLI's build alone.
BESIDE="$(mktemp -d /tmp/agentrun-setup.XXXXXX)"
trap 'rm -rf "$BESIDE"' EXIT
beside pulumi "Pulumi CLI" bash scripts/setup-pulumi.sh
beside daemon "computerd (dist/computerd-linux-amd64, -arm64)" bash scripts/build-daemon.sh
# The Python side: its venv (PyPI's pulumi, pytest) and this tree's SDK installed for it; with
# --tests, Pulumi's Python code generator, which the tests run to hold the SDK to the schema.
beside python "Python venv and SDK (pulumi_agentrun)" bash scripts/setup-python.sh
if [ "$tests" = 1 ]; then beside pygen "gen-python-sdk (Pulumi's Python code generator)" bash scripts/setup-gen-python-sdk.sh; fi
step "node modules" node_modules
if [ "$tests" = 1 ]; then
  step "tmux (for the shell tests)" apt_tool tmux tmux
  step "Xvfb (for the daemon's X11 tests)" apt_tool Xvfb xvfb
  step "BusyBox (for the Modal entrypoint's tests)" apt_tool busybox busybox-static
  step "pip's wheel (for ComputerApp's requirements test)" apt_file "/usr/share/python-wheels/pip-*.whl" python3-pip-whl
  step "adb (for the phone harness's tests)" apt_tool adb adb
  step "aapt (for the phone's fixture app)" apt_tool aapt aapt
  step "zipalign (for the phone's fixture app)" apt_tool zipalign zipalign
  step "apksigner (for the phone's fixture app)" apt_tool apksigner apksigner
  step "framework-res.apk (for the phone's fixture app)" apt_file /usr/share/android-framework-res/framework-res.apk android-framework-res
  step "the phone's fixture app (dist/phone-fixture)" bash scripts/build-phone-fixture.sh
  step "sshd (for the remote Docker engine's tests)" apt_file /usr/sbin/sshd openssh-server
  step "registry (for the default image's pull tests)" apt_file /usr/bin/docker-registry docker-registry
fi
step "Docker engine" bash scripts/setup-docker.sh
step "gVisor (runsc, for runtime gvisor)" bash scripts/setup-gvisor.sh
beside base "base image" bash scripts/base-image.sh
step "TypeScript build" typescript
joined base BASE_IMAGE
# The computers' own image (the provider's recipe on the base), made here beside the CLI's build
# rather than by the first `pulumi up` before its first computer. Exit 10: it was there. Its bound
# is an hour, not a create's ten minutes: beside the CLI's build on a busy 2-core machine it took
# longer than ten.
computers_image() {
  node --input-type=module -e '
    const { dockerRecipe, ensureImage } = await import(process.argv[1] + "/dist/src/docker/image.js");
    let built = false;
    const made = await ensureImage({ recipe: dockerRecipe(process.argv[2]) }, { onWait: () => (built = true), timeoutMs: 3_600_000 });
    if (!made.ok) console.error(`[setup] ${made.error.message}`);
    process.exit(!made.ok ? 1 : built ? 0 : 10);' "$ROOT" "$BASE_IMAGE"
}
beside image "computers' image (the provider's default)" computers_image
# The browser fakes' image (Debian's chromium on the base, tagged by its recipe's hash), built
# once here so the suites and conformance runs that start a fake at once never build it twice.
browser_image() {
  node --input-type=module -e '
    const { browserImage } = await import(process.argv[1] + "/dist/test/support/fake-chromium.js");
    let built = false;
    await browserImage(process.argv[2], () => { built = true; });
    process.exit(built ? 0 : 10);' "$ROOT" "$BASE_IMAGE"
}
if [ "$tests" = 1 ]; then beside browser "browser image (Chromium, for the browser fakes)" browser_image; fi
# Docker Engine 28 from Go modules, for the volume option's tests (Debian's 20.10 has no
# volume-subpath): cached by its module's hash, so only a fresh machine builds it, beside the rest.
if [ "$tests" = 1 ]; then beside dockerd "Docker Engine 28 (for the volume option's tests)" bash scripts/toolchain/build-dockerd.sh; fi
joined daemon
joined pulumi PULUMI_BIN
joined python PYTHON_VENV
if [ "$tests" = 1 ]; then joined pygen; fi
mkdir -p dist
cat > dist/toolchain.env <<ENV
export PATH="$PULUMI_BIN:\$PATH"
export AGENTRUN_PULUMI_BIN="$PULUMI_BIN"
export AGENTRUN_PYTHON="$PYTHON_VENV/bin/python"
export PYTHONPATH="$ROOT/dist/python-sdk\${PYTHONPATH:+:\$PYTHONPATH}"
export AGENTRUN_BASE_IMAGE="$BASE_IMAGE"
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
ENV
node -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({
  pulumiBin: process.argv[2], baseImage: process.argv[3], root: process.argv[4],
  daemon: { amd64: process.argv[4] + "/dist/computerd-linux-amd64", arm64: process.argv[4] + "/dist/computerd-linux-arm64" },
  python: process.argv[5] + "/bin/python", pythonSdk: process.argv[4] + "/dist/python-sdk",
}, null, 2) + "\n")' dist/toolchain.json "$PULUMI_BIN" "$BASE_IMAGE" "$ROOT" "$PYTHON_VENV"
joined image
if [ "$tests" = 1 ]; then joined browser; joined dockerd; fi
if [ $((SECONDS - t_all)) -gt 2 ]; then say "set-up done in $((SECONDS - t_all)) s"; fi
# Run as `npm run setup` on its own (not inside npm run up or npm test): what to run next.
if [ "${npm_lifecycle_event:-}" = setup ]; then
  say "next: \`. dist/toolchain.env\` puts this set-up's pulumi on your PATH; then \`npm run up\` makes the root stack's computers, or follow an example's README (examples/README.md lists them)"
fi
