#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# selftest/run.sh — build the HCBS RFC v1 port (../series) on Debian's
# linux-source-6.12 and run selftest.sh in a qemu TCG guest.
#
#   run.sh [--debug] [WORKDIR]      (default WORKDIR: /tmp/hcbs-rfc1-selftest)
#
# --debug adds debug.config (lockdep, PROVE_RCU, SCHED_DEBUG, PREEMPT).
# Needs: linux-source-6.12, build-essential, flex, bison, bc, libelf-dev,
# libssl-dev, cpio, busybox-static, qemu-system-x86 (apt-get install).
# Prints the guest's PASS/FAIL/INFO lines; exit 0 only if every check passed
# and the kernel log has no WARNING/BUG/Oops/panic.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SERIES_DIR=$(dirname "$HERE")
FLAVOUR=plain
if [ "${1:-}" = --debug ]; then FLAVOUR=debug; shift; fi
W=${1:-/tmp/hcbs-rfc1-selftest}
SRC=$W/linux-source-6.12
OUT=$W/build-$FLAVOUR
LOG=$W/guest-$FLAVOUR.log
mkdir -p "$W"

stamp=$(cat "$SERIES_DIR/series" $(grep -v '^#' "$SERIES_DIR/series" | sed "s#^#$SERIES_DIR/#") | sha256sum | cut -c1-16)
if [ ! -f "$SRC/.hcbs-stamp" ] || [ "$(cat "$SRC/.hcbs-stamp")" != "$stamp" ]; then
	echo "run.sh: unpacking and patching into $SRC"
	rm -rf "$SRC" "$W"/build-*
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$W"
	for p in $(grep -v '^#' "$SERIES_DIR/series"); do
		patch -d "$SRC" -p1 --forward --batch --quiet -i "$SERIES_DIR/$p"
	done
	echo "$stamp" > "$SRC/.hcbs-stamp"
fi

if [ ! -f "$OUT/.config" ]; then
	mkdir -p "$OUT"
	make -C "$SRC" O="$OUT" ARCH=x86_64 tinyconfig >/dev/null
	frags="$HERE/kernel.config"
	[ $FLAVOUR = debug ] && frags="$frags $HERE/debug.config"
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" $frags >/dev/null
	make -C "$SRC" O="$OUT" ARCH=x86_64 olddefconfig >/dev/null
fi
echo "run.sh: building bzImage in $OUT (niced, -j$(nproc))"
nice -n 10 make -C "$SRC" O="$OUT" ARCH=x86_64 -j"$(nproc)" bzImage >"$OUT/build.log" 2>&1 ||
	{ grep -E "error" "$OUT/build.log" | tail; exit 1; }

R=$W/initramfs-root
rm -rf "$R"
mkdir -p "$R/bin" "$R/proc" "$R/sys" "$R/dev" "$R/tmp"
cp /bin/busybox "$R/bin/"
for a in $(/bin/busybox --list-full); do
	mkdir -p "$R/$(dirname "$a")"
	[ -e "$R/$a" ] || ln -s /bin/busybox "$R/$a"
done
gcc -static -O2 -Wall -o "$R/bin/hcbst" "$HERE/hcbst.c"
cp "$HERE/selftest.sh" "$R/selftest.sh"
printf '#!/bin/sh\nsh /selftest.sh\necho "HCBS-SELFTEST: done"\nsync\nreboot -f\n' > "$R/init"
chmod 755 "$R/init" "$R/selftest.sh"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$W/initramfs.cpio.gz"

echo "run.sh: booting (qemu TCG, 2 CPUs), log $LOG"
# sockets=2: without ACPI the guest reads the CPUs from SeaBIOS's MP table,
# which lists one CPU per package.
timeout -k 5 600 qemu-system-x86_64 -accel tcg -smp 2,sockets=2,cores=1 -m 512 \
	-nodefaults -no-user-config -display none -no-reboot -serial stdio \
	-kernel "$OUT/arch/x86/boot/bzImage" -initrd "$W/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 ${HCBS_APPEND:-}" </dev/null 2>&1 | tr -d '\r' > "$LOG"
grep -E '^(PASS|FAIL|INFO|HCBS-SELFTEST)' "$LOG" || true
if grep -vE '^(PASS|FAIL|INFO|SKIP)' "$LOG" | grep -qE 'WARNING:|BUG:|Oops|Kernel panic|Call Trace'; then
	echo "run.sh: the kernel log has warnings: see $LOG"
	exit 1
fi
grep -qE '^HCBS-SELFTEST-RESULT: [0-9]+ passed, 0 failed' "$LOG"
