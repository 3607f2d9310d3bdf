#!/usr/bin/env bash
# The base image computers are made from, with no registry: Debian bookworm by
# `debootstrap --variant=minbase` from the host's own Debian mirror, then `docker import`.
# Tagged by the hash of what it is made from, so it is built once. Prints the tag.
# Exit 10: the tagged image is already there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SUITE=bookworm
VARIANT=minbase
# The mirror is the host's (its apt sources), never a name written here.
mirror="$( (grep -hoE '^(URIs:|deb) +https?://[^ ]+' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true) \
  | grep -v security | head -n1 | awk '{print $NF}')"
[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list*; the base image needs one"
# Nothing is at /work in the image: Docker copies an image directory's mode onto a tmpfs mounted
# over it, and /work must stay 0700.
recipe="suite=$SUITE variant=$VARIANT mirror=$mirror cleanup=apt-lists,work"
tag="agentrun-base:$(printf '%s' "$recipe" | sha256sum | cut -c1-12)"

if docker image inspect "$tag" >/dev/null 2>&1; then echo "$tag"; exit 10; fi

# Set-ups running at once share one build: the others wait for it.
mkdir -p "$AGENTRUN_CACHE"
exec 9>"$AGENTRUN_CACHE/base-image.lock"
flock 9
if docker image inspect "$tag" >/dev/null 2>&1; then echo "$tag"; exit 10; fi

if ! command -v debootstrap >/dev/null; then
  [ "$(id -u)" = 0 ] || die "debootstrap is missing; run as root: apt-get install debootstrap"
  say "installing debootstrap (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null \
    || { apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } \
    || die "apt-get install debootstrap failed"
fi
work="$(mktemp -d /tmp/agentrun-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
say "making the base image $tag: debootstrap $VARIANT $SUITE (about 30 s)"
debootstrap --variant=$VARIANT $SUITE "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed; check that $mirror answers"; }
rm -rf "$work/root/var/lib/apt/lists/"* "$work/root/var/cache/apt/archives/"*.deb "$work/root/work"
say "importing it into Docker"
tar -C "$work/root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["/bin/bash"]' \
  --change "LABEL agentrun.base.recipe=\"$recipe\"" - "$tag" >/dev/null
echo "$tag"
