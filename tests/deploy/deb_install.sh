#!/bin/bash
# Builds the Debian package with CPack (dpkg-deb, dpkg-shlibdeps), checks its metadata, installs
# it with `dpkg -i` into a throw-away root (--root: this machine's own /usr is shared and stays
# untouched), and runs the demo from the installed tree.  Usage: deb_install.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d /tmp/hpcsens-deb-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
  fail "cpack: $(tail -n 20 "$tmp/cpack.log")"
deb=$(ls "$tmp"/pkg/hpcsens_*.deb)
info=$(dpkg-deb --info "$deb")
echo "$info" | grep -q "Package: hpcsens" || fail "no package name: $info"
# dpkg-shlibdeps found the shared libraries the binaries need.
echo "$info" | grep -Eq "Depends:.*libc6" || fail "no shlibs dependencies: $info"
dpkg-deb --contents "$deb" >"$tmp/contents"
grep -q " ./usr/lib/libhpcsens_preload.so$" "$tmp/contents" || fail "preload not in the package: $(cat "$tmp/contents")"
grep -q " ./usr/lib/hpcsens/hpcsens-counter-agent$" "$tmp/contents" || fail "counter agent not in the package: $(cat "$tmp/contents")"

root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# The dependencies are installed on this machine, not in the empty root, which has no shell for
# the (no-op) maintainer scripts either: they run outside it, with DPKG_ROOT set.
dpkg --root="$root" --force-depends --force-not-root --force-script-chrootless --log=/dev/null -i "$deb" >"$tmp/dpkg.log" 2>&1 ||
  fail "dpkg -i: $(cat "$tmp/dpkg.log")"
dpkg --root="$root" -s hpcsens | grep -q "Status: install ok installed" || fail "not installed"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$tmp"
HPCSENS_DEMO_OUT="$tmp/demo" "$root/usr/share/hpcsens/demo.sh" "$root/usr" >"$tmp/demo.log" 2>&1 ||
  fail "demo from the package failed: $(tail -n 30 "$tmp/demo.log")"
grep -q "^hpcsens: record: $tmp/demo/runs/" "$tmp/demo.log" || fail "demo: no measured record"
grep -q "EMULATED" "$tmp/demo.log" || fail "demo: the sweep is not labelled EMULATED"
[ -s "$tmp/demo/sweep/model.json" ] || fail "demo: no model"
grep -q "high-bandwidth" "$tmp/demo.log" || fail "demo: no prediction for the candidates"
echo "deb_install: OK ($(basename "$deb"))"
