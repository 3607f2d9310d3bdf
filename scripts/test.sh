#!/usr/bin/env bash
# The README's test command: set-up, then the daemon's Go tests, the conformance suite on Docker
# and on Modal's and E2B's Docker-backed fakes and the Daytona fake (each must print core PASS and exit 0) and on a
# Docker desktop (kind desktop PASS), and every vitest suite (unit, integration against the real
# Docker engine, end to end through the real Pulumi engine).
# Fails when a suite fails or ran no test; ends with one "N passed, N failed" line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
bash scripts/setup.sh
. dist/toolchain.env
out="$(mktemp -d /tmp/agentrun-test.XXXXXX)"
trap 'rm -rf "$out"' EXIT

say "type-checking the tests (tsconfig.test.json)"
npx tsc -p tsconfig.test.json

say "formatting: prettier --check (TypeScript), gofmt -l (daemon/)"
npx prettier --check --log-level warn "**/*.{ts,mjs,js}" || die "the TypeScript is not formatted: run npm run format"
unformatted="$(cd daemon && gofmt -l .)"
[ -z "$unformatted" ] || die "gofmt -l lists files in daemon/: $unformatted (run gofmt -w daemon)"

say "go vet and go test (daemon/)"
(cd daemon && go vet ./...)
set +e
(cd daemon && go test -json ./... >"$out/go.json"); go_rc=$?
set -e
node scripts/go-test-summary.mjs "$out/go.json" >"$out/go.counts" || go_rc=1
read -r go_pass go_fail <"$out/go.counts"

say "conformance on Docker: the whole suite, and --kind desktop beside it with the desktop fixture; on the Daytona fake beside them"
set +e
# Daytona's run needs its fake (a loopback server over root containers), which the test file starts.
DAYTONA_CONFORMANCE_OUT="$out/conformance-daytona.txt" npx vitest run test/docker/daytona-conformance.test.ts >"$out/daytona-vitest.txt" 2>&1 &
day_pid=$!
# E2B's run needs its Docker-backed fake (a stand-in envd built first), which the test file holds.
E2B_CONFORMANCE_OUT="$out/conformance-e2b.txt" npx vitest run test/docker/e2b-conformance.test.ts >"$out/e2b-vitest.txt" 2>&1 &
e2b_pid=$!
node dist/src/conformance/cli.js --provider docker >"$out/conformance.txt" 2>&1 &
conf_pid=$!
node dist/src/conformance/cli.js --provider docker --kind desktop --fixture dist/computerd-fixture-linux-amd64 >"$out/conformance-desktop.txt" 2>&1 &
desk_pid=$!
wait "$conf_pid"; conf_rc=$?
wait "$desk_pid"; desk_rc=$?
wait "$day_pid"; day_rc=$?
wait "$e2b_pid"; e2b_rc=$?
# Modal on the Docker-backed fake: its sandboxes carry a run label only this run's do, and go by it.
modal_run="ci-$(date +%s)-$$"
AGENTRUN_MODAL_FAKE_RUN="$modal_run" node dist/src/conformance/cli.js --provider ./dist/test/support/fake-modal-conformance.js >"$out/conformance-modal.txt" 2>&1
modal_rc=$?
left="$(docker ps -aq --filter "label=agentrun.test.modal-fake=$modal_run")"
[ -z "$left" ] || docker rm --force $left >/dev/null
set -e
cat "$out/conformance.txt"
conf_ok=0
if [ "$conf_rc" != 0 ] || ! grep -q '^core PASS ' "$out/conformance.txt"; then
  say "conformance on Docker did not print core PASS and exit 0 (it exited $conf_rc)"; conf_ok=1
fi
cat "$out/conformance-desktop.txt"
if [ "$desk_rc" != 0 ] || ! grep -q '^kind desktop PASS' "$out/conformance-desktop.txt"; then
  say "conformance --kind desktop on Docker did not print kind desktop PASS and exit 0 (it exited $desk_rc)"; conf_ok=1
fi
cat "$out/conformance-daytona.txt" 2>/dev/null || cat "$out/daytona-vitest.txt"
if [ "$day_rc" != 0 ] || ! grep -q '^core PASS ' "$out/conformance-daytona.txt" 2>/dev/null; then
  say "conformance on the Daytona fake did not print core PASS and exit 0 (it exited $day_rc)"; tail -n 30 "$out/daytona-vitest.txt"; conf_ok=1
fi

cat "$out/conformance-e2b.txt" 2>/dev/null || cat "$out/e2b-vitest.txt"
if [ "$e2b_rc" != 0 ] || ! grep -q '^core PASS ' "$out/conformance-e2b.txt" 2>/dev/null; then
  say "conformance on the E2B fake did not print core PASS and exit 0 (it exited $e2b_rc)"; tail -n 30 "$out/e2b-vitest.txt"; conf_ok=1
fi

cat "$out/conformance-modal.txt"
if [ "$modal_rc" != 0 ] || ! grep -q '^core PASS ' "$out/conformance-modal.txt"; then
  say "conformance on Modal's Docker-backed fake did not print core PASS and exit 0 (it exited $modal_rc)"; conf_ok=1
fi

say "vitest"
set +e
npx vitest run --exclude test/docker/daytona-conformance.test.ts --exclude test/docker/e2b-conformance.test.ts --reporter=default --reporter=json --outputFile.json="$out/vitest.json" "$@"; vt_rc=$?
set -e
read -r vt_pass vt_fail < <(node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(r.numPassedTests, r.numFailedTests + (r.numTotalTests === 0 ? 1 : 0));' "$out/vitest.json" 2>/dev/null || echo "0 1")

echo "go: $go_pass passed, $go_fail failed; vitest: $vt_pass passed, $vt_fail failed"
[ "$go_pass" -gt 0 ] || { say "go test ran no test"; go_rc=1; }
[ "$vt_pass" -gt 0 ] || { say "vitest ran no test"; vt_rc=1; }
echo "conformance on Docker: $(grep '^core ' "$out/conformance.txt" | tail -n1 || echo 'no verdict')"
echo "conformance on a Docker desktop: $(grep '^kind desktop ' "$out/conformance-desktop.txt" | tail -n1 || echo 'no verdict')"
echo "conformance on the Daytona fake: $(grep '^core ' "$out/conformance-daytona.txt" 2>/dev/null | tail -n1 || echo 'no verdict')"
echo "conformance on Modal's fake: $(grep '^core ' "$out/conformance-modal.txt" | tail -n1 || echo 'no verdict')"
echo "conformance on the E2B fake: $(grep '^core ' "$out/conformance-e2b.txt" 2>/dev/null | tail -n1 || echo 'no verdict')"
echo "tests: $((go_pass + vt_pass)) passed, $((go_fail + vt_fail)) failed"
[ "$go_rc" = 0 ] && [ "$vt_rc" = 0 ] && [ "$conf_ok" = 0 ]
