#!/usr/bin/env bash
# The fixture APK for an Android phone's conformance cases (test/fixtures/phone-app), built with
# Debian's aapt (against Debian's framework-res.apk), zipalign and apksigner (a throwaway key made
# by the JDK's keytool), cached by its recipe's hash outside the work tree, and copied to
# dist/phone-fixture/agentrun-fixture.apk. Exit 10: already there. Debian packages no dex compiler
# (dx, d8) nor android.jar, so the APK carries no code (hasCode false): the simulated phone stands
# in for the app's code; a real phone needs the app built with the Android SDK.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

recipe="$ROOT/test/fixtures/phone-app"
framework=/usr/share/android-framework-res/framework-res.apk
hash="$( (cd "$recipe" && find . -type f | LC_ALL=C sort | xargs sha256sum; sha256sum "$ROOT/scripts/build-phone-fixture.sh") | sha256sum | cut -c1-16)"
cached="$AGENTRUN_CACHE/phone-fixture/$hash/agentrun-fixture.apk"
out="$ROOT/dist/phone-fixture/agentrun-fixture.apk"
if [ -f "$cached" ] && cmp -s "$cached" "$out"; then exit 10; fi
if [ ! -f "$cached" ]; then
  for tool in aapt zipalign apksigner keytool; do command -v "$tool" >/dev/null || die "$tool is missing; run as root: apt-get install aapt zipalign apksigner"; done
  [ -f "$framework" ] || die "$framework is missing; run as root: apt-get install android-framework-res"
  say "building the phone's fixture app (aapt, zipalign, apksigner)"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  aapt package -f -M "$recipe/AndroidManifest.xml" -S "$recipe/res" -I "$framework" -F "$work/unaligned.apk"
  zipalign -f 4 "$work/unaligned.apk" "$work/aligned.apk"
  keytool -genkeypair -keystore "$work/key.jks" -storepass agentrun -keypass agentrun -alias fixture \
    -keyalg RSA -keysize 2048 -validity 10000 -dname CN=agentrun-fixture >/dev/null 2>&1
  apksigner sign --ks "$work/key.jks" --ks-pass pass:agentrun --out "$work/signed.apk" "$work/aligned.apk"
  apksigner verify "$work/signed.apk"
  mkdir -p "$(dirname "$cached")"
  mv "$work/signed.apk" "$cached"
fi
mkdir -p "$(dirname "$out")"
cp "$cached" "$out"
