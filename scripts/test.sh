#!/usr/bin/env bash
# The README's test command: set-up, the tests' type-check and the formatting, then the daemon's
# Go tests, the conformance runs of the table below (the suite on Docker, on a Docker desktop, on
# the Daytona fake, on E2B at the wire and on E2B's Docker-backed fake as a desktop, on Modal at the wire,
# on the browser and phone fakes, and Core on the test Kubernetes cluster, which it starts: each must
# print its verdict and exit 0), and every vitest project (unit, docker, pulumi, live, and kube but
# its cluster's own start-and-stop test: see vitest.config.ts), with pytest (test/python: the Python
# SDK and the Python harness) beside vitest. The cluster is stopped at the end only when npm test
# started it (kube:down).
# Fails when a suite fails or ran no test; ends with one "N passed, N failed, N skipped" line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
bash scripts/setup.sh --tests
. dist/toolchain.env
out="$(mktemp -d /tmp/agentrun-test.XXXXXX)"
# The test cluster is the machine's, shared by work trees: stopped at the end (or on an
# interruption) only when it did not answer before npm test started it.
kube_ours=1
bash scripts/kube-up.sh --running 2>/dev/null && kube_ours=0
kube_stop() {
  [ "$kube_ours" = 1 ] || return 0
  kube_ours=0
  say "stopping the test cluster npm test started (kube:down)"
  bash scripts/kube-down.sh
}
trap 'rm -rf "$out"; kube_stop >&2 || true' EXIT

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
read -r go_pass go_fail go_skip <"$out/go.counts"

# The conformance runs, one row each: id | wave | the verdict line it must print (a grep pattern)
# | where, in the line that says it did not | where, in the summary | its command. Each must exit
# 0 and print its verdict; its report is $REPORT (written by the command, or by the test file that
# starts the vendor's fake) and anything else it says goes to its log. The runs of a wave go in
# parallel, and each wave starts when the one before is done. The runs under gVisor (ptrace: every
# system call a stop) go in a wave of their own, where a busy wave's load cannot starve them.
export MODAL_RUN="ci-$(date +%s)-$$" E2B_RUN="ci-e2b-$(date +%s)-$$" BROWSERBASE_RUN="ci-bb-$(date +%s)-$$" KERNEL_RUN="ci-kernel-$(date +%s)-$$"
CONFORMANCE=(
  'docker|1|^core PASS |on Docker|on Docker|node dist/src/conformance/cli.js --provider docker >"$REPORT" 2>&1'
  'desktop|1|^kind desktop PASS|--kind desktop on Docker|on a Docker desktop|node dist/src/conformance/cli.js --provider docker --kind desktop >"$REPORT" 2>&1'
  # Daytona's run needs its fake (a loopback server over root containers), which the test file starts.
  'daytona|1|^core PASS |on the Daytona fake|on the Daytona fake|DAYTONA_CONFORMANCE_OUT="$REPORT" npx vitest run --project docker test/docker/daytona-conformance.test.ts'
  # E2B at the wire: the real e2b SDK against a loopback server of E2B's API and envd, its sandboxes
  # root containers (a stand-in agent on 49983 built first) carrying a run label only this run's do,
  # and going by it with the run's network.
  "e2b-wire|1|^core PASS |on E2B at the wire|on E2B at the wire|AGENTRUN_E2B_FAKE_RUN=\"\$E2B_RUN\" node dist/src/conformance/cli.js --provider ./dist/test/support/fake-e2b-wire-conformance.js >\"\$REPORT\" 2>&1"
  # Core on the single-node test cluster, which the row starts (npm run kube:up: a no-op when it
  # answers; cold, it first builds the cluster's programs): Pods through its API server, its kubeconfig
  # found under dist/.
  'kube|1|^core PASS |on the test Kubernetes cluster|on Kubernetes (the test cluster)|bash scripts/kube-up.sh >&2 && node dist/src/conformance/cli.js --provider kubernetes >"$REPORT" 2>&1'
  # E2B's desktop on the same fake: a desktop template whose sandboxes run Docker's desktop image.
  'e2b-desktop|2|^kind desktop PASS|--kind desktop on the E2B fake|on an E2B desktop (fake)|E2B_CONFORMANCE_OUT="$REPORT" npx vitest run --project docker test/docker/e2b-conformance.test.ts'
  # Modal at the wire: the real modal SDK against a loopback gRPC server of Modal's protocol, its
  # sandboxes root containers carrying a run label only this run's do, and going by it.
  "modal-wire|2|^core PASS |on Modal at the wire|on Modal at the wire|AGENTRUN_MODAL_FAKE_RUN=\"\$MODAL_RUN\" node dist/src/conformance/cli.js --provider ./dist/test/support/fake-modal-wire-conformance.js >\"\$REPORT\" 2>&1"
  # Browserbase and Kernel on their fakes (in the CLI's process): browsers are Chromium containers with the run's label.
  'browserbase|2|^kind browser PASS|--kind browser on the Browserbase fake|on the Browserbase fake|AGENTRUN_BROWSERBASE_FAKE_RUN="$BROWSERBASE_RUN" node dist/src/conformance/cli.js --provider ./dist/test/support/fake-browserbase-conformance.js --kind browser >"$REPORT" 2>&1'
  'kernel|2|^kind browser PASS|--kind browser on the Kernel fake|on the Kernel fake|AGENTRUN_KERNEL_FAKE_RUN="$KERNEL_RUN" node dist/src/conformance/cli.js --provider ./dist/test/support/fake-kernel-conformance.js --kind browser >"$REPORT" 2>&1'
  # A browser on Docker itself: computerd as init, Debian's Chromium, CDP through the daemon's connection.
  'docker-browser|2|^kind browser PASS|--kind browser on Docker|on a Docker browser|node dist/src/conformance/cli.js --provider docker --kind browser >"$REPORT" 2>&1'
  # Core with every computer under gVisor (the set-up's runsc, registered with --network=none, so its row declares network none alone).
  'gvisor|3|^core PASS |--runtime gvisor on Docker|on Docker under gVisor|node dist/src/conformance/cli.js --provider docker --runtime gvisor >"$REPORT" 2>&1'
  # Core with every computer under gVisor on the test cluster (RuntimeClass gvisor: gVisor's shim over Debian's runsc, network
  # none), after the kube row of wave 1 started it.
  'kube-gvisor|3|^core PASS |--runtime gvisor on the test Kubernetes cluster|on Kubernetes under gVisor (the test cluster)|bash scripts/kube-up.sh >&2 && node dist/src/conformance/cli.js --provider kubernetes --runtime gvisor >"$REPORT" 2>&1'
  # The browser kind on the test cluster: the browser recipe's image pushed to its registry first (built once, by its hash).
  'kube-browser|2|^kind browser PASS|--kind browser on the test Kubernetes cluster|on a Kubernetes browser (the test cluster)|bash scripts/kube-up.sh >&2 && bash scripts/kube-browser-image.sh >&2 && node dist/src/conformance/cli.js --provider kubernetes --kind browser >"$REPORT" 2>&1'
  # The phone harness on its fake: simulated Android phones behind a real adb server of the run's own, killed when it exits.
  'phone|2|^kind phone PASS|--kind phone on the phone harness fake|on the phone harness fake|node dist/src/conformance/cli.js --provider ./dist/test/support/fake-phone-harness-conformance.js --kind phone >"$REPORT" 2>&1'
)
wave_ids() { for row in "${CONFORMANCE[@]}"; do IFS='|' read -r id wave _ <<<"$row"; [ "$wave" != "$1" ] || printf ' %s' "$id"; done; }
say "conformance, beside each other:$(wave_ids 1); then:$(wave_ids 2); then:$(wave_ids 3)"
declare -A conf_rc
set +e
for wave in 1 2 3; do
  declare -A pids=()
  for row in "${CONFORMANCE[@]}"; do
    IFS='|' read -r id row_wave _ _ _ command <<<"$row"
    [ "$row_wave" = "$wave" ] || continue
    REPORT="$out/conformance-$id.txt" bash -c "$command" >"$out/conformance-$id.log" 2>&1 &
    pids[$id]=$!
  done
  for id in "${!pids[@]}"; do
    wait "${pids[$id]}"; conf_rc[$id]=$?
  done
  unset pids
done
left="$(docker ps -aq --filter "label=agentrun.test.modal-fake=$MODAL_RUN"; docker ps -aq --filter "label=agentrun.test.e2b-fake=$E2B_RUN"; docker ps -aq --filter "label=agentrun.test.browserbase-fake=$BROWSERBASE_RUN"; docker ps -aq --filter "label=agentrun.test.kernel-fake=$KERNEL_RUN")"
[ -z "$left" ] || docker rm --force $left >/dev/null
docker network rm "fake-e2b-$E2B_RUN" >/dev/null 2>&1 || true
rm -rf "${TMPDIR:-/tmp}/agentrun-e2b-fake-$E2B_RUN" # the E2B fake's state: when each sandbox ends
set -e
conf_ok=0
for row in "${CONFORMANCE[@]}"; do
  IFS='|' read -r id _ verdict where _ _ <<<"$row"
  report="$out/conformance-$id.txt" log="$out/conformance-$id.log" words="${verdict#^}"
  cat "$report" 2>/dev/null || cat "$log"
  if [ "${conf_rc[$id]}" != 0 ] || ! grep -q "$verdict" "$report" 2>/dev/null; then
    say "conformance $where did not print ${words% } and exit 0 (it exited ${conf_rc[$id]})"; tail -n 30 "$log"; conf_ok=1
  fi
done

# pytest (the Python SDK and the Python harness through the real engine) beside vitest, with the
# set-up's venv; its lines are shown once vitest is done.
say "pytest (test/python), beside vitest"
PYTHONDONTWRITEBYTECODE=1 "$AGENTRUN_PYTHON" -m pytest test/python -p no:cacheprovider -q --junitxml="$out/pytest.xml" >"$out/pytest.log" 2>&1 &
py_pid=$!

say "vitest"
set +e
# The kube files run on the cluster the kube row started; its own start-and-stop test is
# npm run test:kube's alone, as it stops a cluster other work trees share.
AGENTRUN_KUBE_TESTS=1 npx vitest run --exclude test/docker/daytona-conformance.test.ts --exclude test/docker/e2b-conformance.test.ts \
  --exclude test/kube/cluster.test.ts --reporter=default --reporter=json --outputFile.json="$out/vitest.json" "$@"; vt_rc=$?
set -e
read -r vt_pass vt_fail vt_skip < <(node scripts/vitest-summary.mjs "$out/vitest.json")
py_rc=0
wait "$py_pid" || py_rc=$?
say "pytest (test/python)"
cat "$out/pytest.log"
read -r py_pass py_fail py_skip < <(node scripts/pytest-summary.mjs "$out/pytest.xml")

echo "go: $go_pass passed, $go_fail failed, $go_skip skipped; vitest: $vt_pass passed, $vt_fail failed, $vt_skip skipped; pytest: $py_pass passed, $py_fail failed, $py_skip skipped"
[ "$go_pass" -gt 0 ] || { say "go test ran no test"; go_rc=1; }
[ "$vt_pass" -gt 0 ] || { say "vitest ran no test"; vt_rc=1; }
[ "$py_pass" -gt 0 ] || { say "pytest ran no test"; py_rc=1; }
for row in "${CONFORMANCE[@]}"; do
  IFS='|' read -r id _ verdict _ summary _ <<<"$row"
  echo "conformance $summary: $(grep "${verdict% PASS*} " "$out/conformance-$id.txt" 2>/dev/null | tail -n1 || echo 'no verdict')"
  # A failed case's own line again, so the end of the output names it.
  grep '^  ✗ ' "$out/conformance-$id.txt" 2>/dev/null | head -n 10 || true
done
echo "tests: $((go_pass + vt_pass + py_pass)) passed, $((go_fail + vt_fail + py_fail)) failed, $((go_skip + vt_skip + py_skip)) skipped"
kube_rc=0
kube_stop || { say "kube:down failed; the lines above say why"; kube_rc=1; }
[ "$go_rc" = 0 ] && [ "$vt_rc" = 0 ] && [ "$py_rc" = 0 ] && [ "$conf_ok" = 0 ] && [ "$kube_rc" = 0 ]
