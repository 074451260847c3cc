#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/kernel/qemu/harness.sh — build a cgroup-v2 RT test kernel and run the
# in-guest suite under qemu (TCG).
#
#   harness.sh deps        install missing build/run dependencies (apt-get)
#   harness.sh kernel      build the kernel, or reuse the cached one
#   harness.sh initramfs   build the initramfs (busybox, dbus-daemon, guest/)
#   harness.sh test        deps + kernel + initramfs + boot + in-guest suite
#   harness.sh status      is a kernel for the current inputs cached? (exit 0/1)
#
# Environment:
#   KERNEL=v2|hcbs          patch series: v2 (default) = patches/series (stage 1,
#                           mainline RT group scheduling on cgroup v2);
#                           hcbs = patches/hcbs-rfc1-6.12/series (the HCBS port)
#   HCBS_KERNEL_CACHE=DIR   cache/build/log directory (default /var/cache/hcbsd-kernel)
#   HCBS_GUEST_BINS="A B"   host executables copied to /usr/local/bin in the guest,
#                           with their shared libraries (ldd) and the loader
#   HCBS_QEMU_TIMEOUT=S     seconds before the guest is killed (default 300)
#   HCBS_QEMU_VERBOSE=1     full kernel log on the console (default: quiet)
#   HCBS_JOBS=N             make -j (default: nproc)
#   HCBS_KEEP_BUILD=1       keep the kernel build tree after a successful build
#
# Exit status: 0 passed; 1 failed (build, boot, timeout, panic, missing marker,
# failed checks); 2 usage; 77 the selected series is not present (KERNEL=hcbs
# before the port exists).
#
# The kernel cache key covers everything that goes into the kernel: the
# linux-source package version, the gcc version, the config fragment(s), the
# series file and each patch, and RECIPE (bump it when the build steps change).
# A cache hit costs seconds; a cold build of the slim kernel takes minutes.

set -euo pipefail

readonly RECIPE=1
readonly SRC_PKG=linux-source-6.12
readonly SRC_TAR=/usr/src/linux-source-6.12.tar.xz
readonly ARCH=x86_64
readonly KEEP_KERNELS=3

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
readonly HERE REPO
CACHE=${HCBS_KERNEL_CACHE:-/var/cache/hcbsd-kernel}
KERNEL=${KERNEL:-v2}
QEMU_TIMEOUT=${HCBS_QEMU_TIMEOUT:-300}
JOBS=${HCBS_JOBS:-$(nproc)}

# Debian packages and a file each proves present.
readonly -a DEPS=(
        "$SRC_PKG:$SRC_TAR"
        "build-essential:/usr/bin/gcc"
        "libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a"
        "bc:/usr/bin/bc"
        "bison:/usr/bin/bison"
        "flex:/usr/bin/flex"
        "libelf-dev:/usr/include/libelf.h"
        "libssl-dev:/usr/include/openssl/ssl.h"
        "xz-utils:/usr/bin/xz"
        "patch:/usr/bin/patch"
        "cpio:/usr/bin/cpio"
        "gzip:/usr/bin/gzip"
        "qemu-system-x86:/usr/bin/qemu-system-x86_64"
        "busybox-static:/bin/busybox"
        "dbus-daemon:/usr/bin/dbus-daemon"
        "dbus-bin:/usr/bin/dbus-send"
)

msg() { printf 'harness: %s\n' "$*"; }
warn() { printf 'harness: warning: %s\n' "$*" >&2; }
die() { printf 'harness: error: %s\n' "$*" >&2; exit 1; }

usage() {
        sed -n '4,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
        exit 2
}

now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------- dependencies

pkg_installed() {
        [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]
}

cmd_deps() {
        local entry pkg file
        local -a missing=()

        command -v dpkg-query >/dev/null || die "dpkg-query not found: this harness expects Debian"
        for entry in "${DEPS[@]}"; do
                pkg=${entry%%:*}
                file=${entry#*:}
                if ! pkg_installed "$pkg" || [[ ! -e $file ]]; then
                        missing+=("$pkg")
                fi
        done
        if ((${#missing[@]} == 0)); then
                msg "deps: all present"
                return 0
        fi
        ((EUID == 0)) || die "deps: missing ${missing[*]} and not root: install them with apt-get"
        msg "deps: installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o DPkg::Lock::Timeout=600 update -q ||
                die "deps: apt-get update failed"
        apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" ||
                die "deps: apt-get install ${missing[*]} failed"
        for entry in "${DEPS[@]}"; do
                [[ -e ${entry#*:} ]] || die "deps: ${entry%%:*} installed but ${entry#*:} is missing"
        done
}

# ---------------------------------------------------------------- series & key

SERIES_DIR=
SERIES_FILE=
PATCHES=()
FRAGMENTS=()

# Select the series for $KERNEL; read its patches and config fragments.
select_series() {
        local line name rest

        case $KERNEL in
        v2)   SERIES_DIR=$REPO/patches ;;
        hcbs) SERIES_DIR=$REPO/patches/hcbs-rfc1-6.12 ;;
        *)    printf 'harness: error: unknown KERNEL=%s (expected v2 or hcbs)\n' "$KERNEL" >&2
              exit 2 ;;
        esac
        SERIES_FILE=$SERIES_DIR/series
        if [[ ! -f $SERIES_FILE ]]; then
                printf 'harness: KERNEL=%s: series not present yet: %s is missing\n' \
                        "$KERNEL" "${SERIES_FILE#"$REPO"/}" >&2
                [[ $KERNEL == hcbs ]] &&
                        printf 'harness: (the HCBS RFC v1 port to 6.12 is a separate issue; use KERNEL=v2 meanwhile)\n' >&2
                exit 77
        fi

        PATCHES=()
        while IFS= read -r line || [[ -n $line ]]; do
                line=${line%%#*}
                read -r name rest <<<"$line" || true
                [[ -n ${name:-} ]] || continue
                [[ -z ${rest:-} || $rest == -p1 ]] ||
                        die "${SERIES_FILE#"$REPO"/}: '$name $rest': only -p1 patches are supported"
                [[ -f $SERIES_DIR/$name ]] ||
                        die "${SERIES_FILE#"$REPO"/}: $name is listed but missing"
                PATCHES+=("$SERIES_DIR/$name")
        done <"$SERIES_FILE"

        FRAGMENTS=("$HERE/config.fragment")
        [[ -f $SERIES_DIR/config.fragment ]] && FRAGMENTS+=("$SERIES_DIR/config.fragment")
        return 0
}

KEY=
KDIR=
KEY_TEXT=

compute_key() {
        local f ver

        if ! pkg_installed "$SRC_PKG" || [[ ! -f $SRC_TAR ]]; then
                die "$SRC_PKG is not installed (run: $0 deps)"
        fi
        command -v gcc >/dev/null || die "gcc is not installed (run: $0 deps)"
        ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG")
        KEY_TEXT=$(
                echo "recipe $RECIPE"
                echo "kernel $KERNEL"
                echo "source $SRC_PKG $ver"
                echo "gcc $(gcc --version | head -n1)"
                echo "series $(sha256sum <"$SERIES_FILE" | cut -d' ' -f1)"
                # Only the option lines count: editing a comment does not rebuild.
                for f in "${FRAGMENTS[@]}"; do
                        echo "fragment ${f#"$REPO"/} $(grep -E '^(CONFIG_|# CONFIG_[A-Za-z0-9_]+ is not set)' "$f" |
                                sha256sum | cut -d' ' -f1)"
                done
                for f in "${PATCHES[@]}"; do
                        echo "patch ${f#"$REPO"/} $(sha256sum <"$f" | cut -d' ' -f1)"
                done
        )
        KEY=$(sha256sum <<<"$KEY_TEXT" | cut -c1-16)
        KDIR=$CACHE/kernels/$KERNEL-$ver-$KEY
}

# ---------------------------------------------------------------- locking

take_lock() {
        mkdir -p "$CACHE" || die "cannot create cache directory $CACHE"
        exec 9>"$CACHE/.lock"
        if ! flock -n 9; then
                msg "waiting for another harness run (lock $CACHE/.lock)"
                flock -w 3600 9 || die "gave up waiting for $CACHE/.lock"
        fi
}

# ---------------------------------------------------------------- kernel

# Check that every option of the fragments survived olddefconfig.
verify_config() {
        local config=$1 frag line opt bad=0

        for frag in "${FRAGMENTS[@]}"; do
                while IFS= read -r line || [[ -n $line ]]; do
                        if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
                                if ! grep -qxF -- "$line" "$config"; then
                                        opt=${BASH_REMATCH[1]}
                                        warn "config: wanted '$line', got '$(grep -E "^(# )?${opt}[= ]" "$config" || echo "$opt absent")'"
                                        bad=1
                                fi
                        elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
                                opt=${BASH_REMATCH[1]}
                                if grep -qE "^$opt=[ym]$" "$config"; then
                                        warn "config: wanted '$opt' off, got '$(grep -E "^$opt=" "$config")'"
                                        bad=1
                                fi
                        fi
                done <"$frag"
        done
        ((bad == 0)) || die "config: the fragment did not apply as written (missing dependency?)"
}

KERNEL_HOW=

build_kernel() {
        local work src log p t0 f

        if [[ -f $KDIR/bzImage ]]; then
                KERNEL_HOW="cache hit"
                msg "kernel: cache hit $KDIR"
                return 0
        fi
        t0=$(now)
        work=$CACHE/build/$KERNEL-$KEY
        src=$work/linux-source-6.12
        log=$work/build.log
        msg "kernel: building $KERNEL (key $KEY) in $work"
        rm -rf "$work"
        mkdir -p "$work"
        printf '%s\n' "$KEY_TEXT" >"$work/key.txt"

        msg "kernel: unpacking $SRC_TAR"
        nice -n 19 tar -xf "$SRC_TAR" -C "$work" || die "kernel: cannot unpack $SRC_TAR"
        [[ -f $src/Makefile ]] || die "kernel: $SRC_TAR did not unpack to $src"

        for p in "${PATCHES[@]}"; do
                msg "kernel: applying ${p#"$REPO"/}"
                patch -d "$src" -p1 --forward --batch --quiet -i "$p" >>"$log" 2>&1 ||
                        { tail -n 20 "$log" >&2; die "kernel: ${p#"$REPO"/} does not apply"; }
        done

        msg "kernel: tinyconfig + $(printf '%s ' "${FRAGMENTS[@]#"$REPO"/}")"
        {
                nice -n 19 make -C "$src" ARCH=$ARCH tinyconfig &&
                (cd "$src" && ./scripts/kconfig/merge_config.sh -m .config "${FRAGMENTS[@]}") &&
                nice -n 19 make -C "$src" ARCH=$ARCH olddefconfig
        } >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "kernel: configuration failed (log: $log)"; }
        verify_config "$src/.config"

        msg "kernel: make -j$JOBS bzImage (niced; log: $log)"
        if ! nice -n 19 make -C "$src" ARCH=$ARCH -j"$JOBS" bzImage >>"$log" 2>&1; then
                grep -E 'error|Error' "$log" | tail -n 20 >&2 || true
                die "kernel: build failed (log: $log)"
        fi

        rm -rf "$KDIR.tmp"
        mkdir -p "$KDIR.tmp"
        cp "$src/arch/x86/boot/bzImage" "$KDIR.tmp/bzImage"
        cp "$src/.config" "$KDIR.tmp/config"
        cp "$work/key.txt" "$KDIR.tmp/key.txt"
        cp "$log" "$KDIR.tmp/build.log"
        elapsed "$t0" >"$KDIR.tmp/build-seconds"
        rm -rf "$KDIR"
        mv "$KDIR.tmp" "$KDIR"
        if [[ ${HCBS_KEEP_BUILD:-0} == 1 ]]; then
                msg "kernel: build tree kept in $work"
        else
                rm -rf "$work"
        fi
        for f in "$CACHE"/build/*; do
                [[ -e $f && $f != "$work" ]] && warn "stale build tree $f (an interrupted build?): remove it"
        done
        # Keep the newest KEEP_KERNELS kernels of this flavour; older ones go.
        # (ls -t: the names are ours, without blanks.)
        # shellcheck disable=SC2012
        while IFS= read -r f; do
                msg "kernel: pruning old $f"
                rm -rf "$f"
        done < <(ls -1dt "$CACHE/kernels/$KERNEL"-*/ 2>/dev/null | tail -n +$((KEEP_KERNELS + 1)))
        KERNEL_HOW="built in $(cat "$KDIR/build-seconds") s"
        msg "kernel: $KDIR/bzImage ($KERNEL_HOW)"
}

cmd_kernel() {
        select_series
        compute_key
        take_lock
        build_kernel
}

# ---------------------------------------------------------------- initramfs

IRD_ROOT=
INITRAMFS=

# copy_libs BINARY: copy the shared libraries and the loader BINARY needs,
# each to the same absolute path inside the initramfs.
copy_libs() {
        local bin=$1 out lib

        if ! out=$(ldd "$bin" 2>&1); then
                [[ $out == *"not a dynamic executable"* ]] && return 0
                die "initramfs: ldd $bin failed: $out"
        fi
        [[ $out == *"statically linked"* ]] && return 0
        if grep -q 'not found' <<<"$out"; then
                die "initramfs: $bin: missing shared libraries: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"
        fi
        # Lines: "libx.so.1 => /path (0x...)", "/lib64/ld-linux-x86-64.so.2 (0x...)",
        # "linux-vdso.so.1 (0x...)" (no file: skipped).
        while IFS= read -r lib; do
                [[ -f $lib ]] || continue
                [[ -e $IRD_ROOT$lib ]] && continue
                mkdir -p "$IRD_ROOT$(dirname "$lib")"
                cp -L "$lib" "$IRD_ROOT$lib"
        done < <(grep -oE '/[^ ]+' <<<"$out")
}

# copy_bin BINARY DIR: BINARY to DIR/ in the initramfs, with its libraries.
copy_bin() {
        local bin=$1 dir=$2

        [[ -f $bin && -x $bin ]] || die "initramfs: $bin is not an executable file"
        mkdir -p "$IRD_ROOT$dir"
        cp -L "$bin" "$IRD_ROOT$dir/$(basename "$bin")"
        copy_libs "$bin"
}

write_guest_etc() {
        local etc=$IRD_ROOT/etc

        printf 'root:x:0:0:root:/root:/bin/sh\nmessagebus:x:100:101::/nonexistent:/bin/false\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$etc/passwd"
        printf 'root:x:0:\nmessagebus:x:101:\nnogroup:x:65534:\n' >"$etc/group"
        printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' >"$etc/nsswitch.conf"
        printf '127.0.0.1 localhost\n' >"$etc/hosts"
        printf 'hcbs-guest\n' >"$etc/hostname"
        # dbus-daemon and sd-bus want a machine id; any fixed one will do.
        printf '4863627364207465737420677565737a\n' >"$etc/machine-id"
        mkdir -p "$IRD_ROOT/var/lib/dbus"
        ln -sf /etc/machine-id "$IRD_ROOT/var/lib/dbus/machine-id"

        # A minimal system bus: no <user> switch, no service activation, open
        # policy (tests run as root and bring their own policy files in
        # /etc/dbus-1/system.d or /usr/share/dbus-1/system.d if they want one).
        mkdir -p "$IRD_ROOT/usr/share/dbus-1/system.d" "$etc/dbus-1/system.d"
        cat >"$IRD_ROOT/usr/share/dbus-1/system.conf" <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- hcbsd qemu guest: minimal system bus, see tests/kernel/qemu/harness.sh -->
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_type="method_return"/>
    <allow send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="signal"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
  </policy>
  <includedir>system.d</includedir>
  <includedir>/etc/dbus-1/system.d</includedir>
</busconfig>
EOF
}

write_guest_init() {
        cat >"$IRD_ROOT/init" <<'EOF'
#!/bin/sh
# PID 1 of the hcbsd qemu guest (written by tests/kernel/qemu/harness.sh).
# Runs /guest/run-suite.sh, which prints the HCBS-GUEST-RESULT marker, then
# turns the machine off (qemu runs with -no-reboot, so a reboot ends it too).
export PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin
export HOME=/root
cd /
sh /guest/run-suite.sh
echo "HCBS-GUEST: run-suite.sh exited $?"
sync
# Not poweroff: it needs the ACPI interpreter (S5), which cannot load qemu's
# DSDT in this kernel (no PCI), so it would only halt the CPUs and qemu would
# run into the harness's timeout.  Under -no-reboot a reboot ends qemu.
reboot -f
EOF
        chmod 755 "$IRD_ROOT/init"
}

build_initramfs() {
        local t0 stage bb app bin spin

        t0=$(now)
        stage=$CACHE/initramfs
        IRD_ROOT=$stage/root
        INITRAMFS=$stage/initramfs-$KERNEL.cpio.gz
        rm -rf "$IRD_ROOT"
        mkdir -p "$IRD_ROOT"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,proc,sys,dev,tmp,run,root,var,guest/bin}
        ln -s ../run "$IRD_ROOT/var/run"
        chmod 1777 "$IRD_ROOT/tmp"
        mknod -m 600 "$IRD_ROOT/dev/console" c 5 1 ||
                die "initramfs: mknod dev/console failed (the harness must run as root)"
        mknod -m 666 "$IRD_ROOT/dev/null" c 1 3

        bb=/bin/busybox
        [[ -x $bb ]] || die "initramfs: $bb missing (run: $0 deps)"
        copy_bin "$bb" /bin
        for app in $("$bb" --list-full); do
                [[ -e $IRD_ROOT/$app || -L $IRD_ROOT/$app ]] && continue
                mkdir -p "$IRD_ROOT/$(dirname "$app")"
                ln -s /bin/busybox "$IRD_ROOT/$app"
        done

        write_guest_init
        write_guest_etc
        copy_bin /usr/bin/dbus-daemon /usr/bin
        copy_bin /usr/bin/dbus-send /usr/bin

        # The guest test scripts, and the spinner built statically from guest/spin.c.
        cp -a "$HERE/guest/." "$IRD_ROOT/guest/"
        spin=$stage/spin
        gcc -static -O2 -Wall -Wextra -Werror -o "$spin" "$HERE/guest/spin.c" ||
                die "initramfs: cannot build guest/spin.c with gcc -static (libc6-dev installed?)"
        install -m 755 "$spin" "$IRD_ROOT/guest/bin/spin"

        for bin in ${HCBS_GUEST_BINS:-}; do
                msg "initramfs: adding $bin"
                copy_bin "$bin" /usr/local/bin
        done

        (cd "$IRD_ROOT" && find . -print0 | LC_ALL=C sort -z |
                cpio --null --create --format=newc --owner=0:0 --quiet) |
                gzip -1 >"$INITRAMFS.tmp" || die "initramfs: cpio failed"
        mv "$INITRAMFS.tmp" "$INITRAMFS"
        msg "initramfs: $INITRAMFS ($(du -h "$INITRAMFS" | cut -f1), $(elapsed "$t0") s)"
}

cmd_initramfs() {
        take_lock
        build_initramfs
}

# ---------------------------------------------------------------- boot & run

GUEST_PASSED=0
GUEST_FAILED=0

# boot_and_run LOG: boot the kernel with the initramfs; check the log.
boot_and_run() {
        local logf=$1 rc=0 quiet=quiet marker

        [[ ${HCBS_QEMU_VERBOSE:-0} == 1 ]] && quiet=
        command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (run: $0 deps)"
        msg "boot: qemu (TCG, 2 CPUs, 512 MiB, timeout ${QEMU_TIMEOUT}s), console log: $logf"
        set +e
        timeout -k 10 "$QEMU_TIMEOUT" qemu-system-x86_64 \
                -accel tcg -smp 2 -m 512 \
                -nodefaults -no-user-config -display none -no-reboot \
                -serial stdio \
                -kernel "$KDIR/bzImage" -initrd "$INITRAMFS" \
                -append "console=ttyS0 panic=-1 $quiet hcbs.kernel=$KERNEL" \
                </dev/null 2>&1 | tr -d '\r' | tee "$logf"
        rc=${PIPESTATUS[0]}
        set -e

        if ((rc == 124 || rc == 137)); then
                die "boot: guest timed out after ${QEMU_TIMEOUT}s (log: $logf)"
        fi
        ((rc == 0)) || die "boot: qemu exited with status $rc (log: $logf)"
        if grep -qE 'Kernel panic|BUG: |Oops:|general protection fault|WARNING: CPU: ' "$logf"; then
                grep -E 'Kernel panic|BUG: |Oops:|general protection fault|WARNING: CPU: ' "$logf" | head -n 5 >&2
                die "boot: the guest kernel panicked, oopsed or warned (log: $logf)"
        fi
        marker=$(grep -E '^HCBS-GUEST-RESULT: [0-9]+ passed, [0-9]+ failed' "$logf" | tail -n1 || true)
        [[ -n $marker ]] || die "boot: no HCBS-GUEST-RESULT marker in the guest output (log: $logf)"
        [[ $marker =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]
        GUEST_PASSED=${BASH_REMATCH[1]}
        GUEST_FAILED=${BASH_REMATCH[2]}
}

cmd_test() {
        local t0 t_kernel t_ird t_boot logf runs

        t0=$(now)
        cmd_deps
        select_series
        compute_key
        take_lock

        build_kernel
        t_kernel=$(elapsed "$t0")

        local t1
        t1=$(now)
        build_initramfs
        t_ird=$(elapsed "$t1")

        runs=$CACHE/runs
        mkdir -p "$runs"
        logf=$runs/$(date +%Y%m%d-%H%M%S)-$KERNEL.log
        ln -sfn "$logf" "$CACHE/last-run.log"
        t1=$(now)
        boot_and_run "$logf"
        t_boot=$(elapsed "$t1")

        msg "timing: deps+kernel ${t_kernel}s (${KERNEL_HOW}), initramfs ${t_ird}s, boot+suite ${t_boot}s, total $(elapsed "$t0")s"
        printf '%s kernel=%s key=%s kernel_how="%s" deps_kernel=%s initramfs=%s boot_suite=%s total=%s passed=%s failed=%s\n' \
                "$(date -Is)" "$KERNEL" "$KEY" "$KERNEL_HOW" "$t_kernel" "$t_ird" "$t_boot" "$(elapsed "$t0")" \
                "$GUEST_PASSED" "$GUEST_FAILED" >>"$CACHE/timings.log"
        if ((GUEST_FAILED > 0 || GUEST_PASSED == 0)); then
                msg "FAILED: see the FAIL: lines above (log: $logf)"
                echo "hcbs-kernel-tests: $GUEST_PASSED passed, $GUEST_FAILED failed"
                exit 1
        fi
        echo "hcbs-kernel-tests: $GUEST_PASSED passed, $GUEST_FAILED failed"
}

cmd_status() {
        local other

        select_series
        if ! pkg_installed "$SRC_PKG" || [[ ! -f $SRC_TAR ]]; then
                msg "status: $SRC_PKG not installed: no kernel can be built or matched (run: $0 deps)"
                exit 1
        fi
        compute_key
        for other in "$CACHE"/kernels/*/bzImage; do
                [[ -f $other && $other != "$KDIR/bzImage" ]] && msg "status: other cached kernel: ${other%/bzImage}"
        done
        if [[ -f $KDIR/bzImage ]]; then
                msg "status: KERNEL=$KERNEL: cached kernel for the current inputs: $KDIR/bzImage"
                exit 0
        fi
        msg "status: KERNEL=$KERNEL: no cached kernel for the current inputs (would be $KDIR)"
        exit 1
}

main() {
        (($# == 1)) || usage
        case $1 in
        deps)      cmd_deps ;;
        kernel)    cmd_kernel ;;
        initramfs) select_series; cmd_initramfs ;;
        test)      cmd_test ;;
        status)    cmd_status ;;
        -h|--help|help) usage ;;
        *)         usage ;;
        esac
}

main "$@"; exit $?   # one line: edits to this file during a run cannot be read past it
