#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/kernel/qemu/harness.sh — build a cgroup-v2 RT test kernel and run the
# in-guest suites under qemu (TCG): a busybox initramfs guest, and a Debian
# bookworm guest booting systemd with hcbsd installed from its .deb (`make deb`).
#
#   harness.sh deps          install missing build/run dependencies (apt-get)
#   harness.sh kernel        build the kernel, or reuse the cached one
#   harness.sh initramfs     build the initramfs (busybox, dbus-daemon, guest/)
#   harness.sh test          deps + kernel + initramfs + boot + in-guest suite
#   harness.sh rootfs        build (or find cached) the systemd guest's rootfs
#   harness.sh systemd-test  deps + kernel + rootfs + guest build + stage +
#                            boot systemd + guest-systemd/ suites
#   harness.sh status        is a kernel for the current inputs cached? (exit 0/1)
#   harness.sh demo          deps + kernel + initramfs + boot, and make demo's
#                            session (tests/demo/guest.sh) instead of the suite
#
# Environment:
#   KERNEL=v2|hcbs|hcbs6|hcbs7|auto  patch series: v2 = patches/series (stage 1,
#                           mainline RT group scheduling on cgroup v2);
#                           hcbs = patches/hcbs-rfc1-6.12/series (the HCBS port);
#                           hcbs6 = patches/hcbs-v6-6.12/series (v6 cpu.rt.max rules);
#                           hcbs7 = patches/hcbs-v7-6.12/series (v6 migration,
#                           the devel-v7 interface with cpusets);
#                           auto = hcbs if that series exists, else v2.
#                           Default: v2, but auto for systemd-test.
#   HCBS_KERNEL_DEBUG=1     the debug kernel: debug.config (lockdep, PROVE_RCU,
#                           SCHED_DEBUG, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, PREEMPT)
#                           merged last, cached apart (kernels/KERNEL+debug-...);
#                           lockdep and RCU reports fail the run
#   HCBS_KERNEL_CONFIG=FILE one more fragment merged last (after debug.config),
#                           for a diagnosis; the kernel is cached as
#                           KERNEL[+debug]+NAME, NAME being FILE's name without
#                           .config (e.g. sched-debug.config: SCHED_DEBUG on the
#                           non-debug kernel, /sys/kernel/debug/sched/debug)
#   HCBS_KERNEL_CACHE=DIR   cache/build/log directory (default /var/cache/hcbsd-kernel)
#   HCBS_GUEST_BINS="A B"   host executables copied to /usr/local/bin in the
#                           initramfs guest, with their shared libraries (ldd)
#   HCBS_GUEST_DEB_DIR=DIR  where `make deb` builds the systemd guest's
#                           hcbsd_*.deb, an ASan+UBSan build (default
#                           build-deb-guest; rebuilt on each run)
#   HCBS_DEBIAN_MIRROR=URL  debootstrap mirror (default http://deb.debian.org/debian)
#   HCBS_QEMU_TIMEOUT=S     seconds before the guest is killed (default 600;
#                           1320 for systemd-test)
#   HCBS_QEMU_VERBOSE=1     full kernel log on the console (default: quiet)
#   HCBS_GUEST_SUITES=A,B   run only the guest's suite-A.sh, suite-B.sh (test:
#                           guest/, e.g. sizing; systemd-test: guest-systemd/,
#                           e.g. boot,containers), a quicker loop
#   HCBS_MULTI_ROUNDS=N     guest/suite-hcbs-multicpu.sh runs only N rounds of
#                           "regression fair-server" then "regression fifo r10"
#                           (KERNEL=hcbs7; a quicker loop for the r10 failure of
#                           patches/hcbs-v7-6.12/README.md, fixed in 0005)
#   HCBS_SOAK_SECONDS=N     run the soak (guest/suite-soak.sh, tests/soak/) N
#   HCBS_SOAK_SEED=S        seconds in the busybox guest, from seed S; the
#                           guest's timeout grows by 2 N
#   HCBS_JOBS=N             make -j (default: nproc)
#   HCBS_KEEP_BUILD=1       keep the kernel build tree after a successful build
#
# Exit status: 0 passed; 1 failed (build, boot, timeout, panic, missing marker,
# failed checks); 2 usage; 77 the selected series is not present (KERNEL=hcbs
# before the port exists).
#
# The kernel cache key covers everything that goes into the kernel: the
# linux-source package version, the gcc and pahole versions, the config fragment(s), the
# series file and each patch, and RECIPE (bump it when the build steps change).
# A cache hit costs seconds; a cold build of the slim kernel takes minutes.
# The rootfs cache key covers the suite, the package list, ROOTFS_RECIPE and
# the text of rootfs_configure.

set -euo pipefail

readonly RECIPE=1
readonly SRC_PKG=linux-source-6.12
readonly SRC_TAR=/usr/src/linux-source-6.12.tar.xz
readonly ARCH=x86_64
readonly KEEP_KERNELS=4

# The systemd guest: Debian bookworm (systemd 252), debootstrap minbase plus
# these packages.  hcbsd and hcbsctl need libsystemd0 and libinih1 (libbpf1,
# libelf1 and zlib1g with -Dbpf=enabled) and, since the guest build is an
# ASan+UBSan build, libasan8 and libubsan1; a missing library fails the staging
# step with the name (chroot ldd).  polkitd is Debian's real polkit daemon
# (bus-activated; guest-systemd/suite-polkit.sh gives it a rules.d rule);
# libpam-systemd is named because debootstrap does not resolve polkitd's
# "default-logind | logind" by itself.  man-db and bash-completion: the
# package's suite checks `man -w` and the completion (suite-zy-package.sh).
# podman, crun, conmon and containers-common: rootful containers for
# suite-containers.sh (netavark named because debootstrap does not resolve
# containers-common's virtual "container-network-stack"; the suite runs with
# --network none); busybox-static fills the containers' --rootfs.  rt-tests:
# cyclictest, against which suite-stats.sh checks the collector's latency;
# rt-app: a load of known shape for suite-observe.sh.
# cockpit-ws, cockpit-bridge and cockpit-system (the shell and its menu):
# Debian's cockpit 287, which hcbsd's Cockpit page plugs into
# (suite-cockpit.sh, driven by Chromium on the host through a forwarded port);
# dbus-user-session is named because debootstrap does not resolve the
# virtual "default-dbus-session-bus" of dconf-service (glib-networking's).
# Bump ROOTFS_RECIPE when the debootstrap
# step changes; edits to rootfs_configure change the key by themselves.
readonly ROOTFS_RECIPE=1
readonly ROOTFS_SUITE=bookworm
readonly -a ROOTFS_PACKAGES=(
        systemd systemd-sysv dbus udev procps
        libsystemd0 libinih1 libbpf1 libelf1 zlib1g
        libasan8 libubsan1
        polkitd libpam-systemd
        man-db bash-completion
        podman crun conmon golang-github-containers-common netavark busybox-static
        rt-tests rt-app
        cockpit-ws cockpit-bridge cockpit-system dbus-user-session
)
# 3: branches with different package lists (pkg adds man-db) share the cache,
# and a new rootfs must not prune the one main still uses.
readonly KEEP_ROOTFS=3
readonly DISK_SIZE=1G

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
readonly HERE REPO
CACHE=${HCBS_KERNEL_CACHE:-/var/cache/hcbsd-kernel}
KERNEL=${KERNEL:-}       # resolved per subcommand (resolve_kernel)
QEMU_TIMEOUT=${HCBS_QEMU_TIMEOUT:-}
MIRROR=${HCBS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
GUEST_DEB_DIR=${HCBS_GUEST_DEB_DIR:-$REPO/build-deb-guest}
GUEST_DEB=
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
        "dwarves:/usr/bin/pahole"
        "libssl-dev:/usr/include/openssl/ssl.h"
        "xz-utils:/usr/bin/xz"
        "patch:/usr/bin/patch"
        "cpio:/usr/bin/cpio"
        "gzip:/usr/bin/gzip"
        "qemu-system-x86:/usr/bin/qemu-system-x86_64"
        "busybox-static:/bin/busybox"
        "dbus-daemon:/usr/bin/dbus-daemon"
        "dbus-bin:/usr/bin/dbus-send"
        "debootstrap:/usr/sbin/debootstrap"
        "e2fsprogs:/usr/sbin/mke2fs"
)

msg() { printf 'harness: %s\n' "$*"; }
warn() { printf 'harness: warning: %s\n' "$*" >&2; }
die() { printf 'harness: error: %s\n' "$*" >&2; exit 1; }

usage() {
        # The header comment, from line 4 to the first line that is not one.
        awk 'NR < 4 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "${BASH_SOURCE[0]}" >&2
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
# The kernel's name in the cache, logs and timings: KERNEL, or KERNEL+debug
# (HCBS_KERNEL_DEBUG=1); a name of its own keeps the prune of one from
# removing the other.
KFLAVOUR=

KERNEL_WHY=

# resolve_kernel DEFAULT: KERNEL (DEFAULT when unset); auto becomes hcbs when
# the HCBS series exists, else v2, and KERNEL_WHY says which and why.
resolve_kernel() {
        local hcbs_series=patches/hcbs-rfc1-6.12/series

        KERNEL=${KERNEL:-$1}
        KERNEL_WHY="KERNEL=$KERNEL"
        if [[ $KERNEL == auto ]]; then
                if [[ -f $REPO/$hcbs_series ]]; then
                        KERNEL=hcbs
                        KERNEL_WHY="KERNEL=auto: hcbs, because $hcbs_series exists"
                else
                        KERNEL=v2
                        KERNEL_WHY="KERNEL=auto: v2, because $hcbs_series does not exist yet"
                fi
        fi
}

# Select the series for $KERNEL; read its patches and config fragments.
select_series() {
        local line name rest

        case $KERNEL in
        v2)   SERIES_DIR=$REPO/patches ;;
        hcbs) SERIES_DIR=$REPO/patches/hcbs-rfc1-6.12 ;;
        hcbs6) SERIES_DIR=$REPO/patches/hcbs-v6-6.12 ;;
        hcbs7) SERIES_DIR=$REPO/patches/hcbs-v7-6.12 ;;
        *)    printf 'harness: error: unknown KERNEL=%s (expected v2, hcbs, hcbs6, hcbs7 or auto)\n' "$KERNEL" >&2
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
        KFLAVOUR=$KERNEL
        if [[ ${HCBS_KERNEL_DEBUG:-0} == 1 ]]; then
                FRAGMENTS+=("$HERE/debug.config")
                KFLAVOUR=$KERNEL+debug
        fi
        if [[ -n ${HCBS_KERNEL_CONFIG:-} ]]; then
                local extra name
                extra=$(realpath -e -- "$HCBS_KERNEL_CONFIG") ||
                        die "HCBS_KERNEL_CONFIG=$HCBS_KERNEL_CONFIG: no such file"
                name=$(basename -- "$extra" .config)
                [[ $name =~ ^[A-Za-z0-9_-]+$ ]] ||
                        die "HCBS_KERNEL_CONFIG=$HCBS_KERNEL_CONFIG: its name (without .config) must be letters, digits, - or _"
                FRAGMENTS+=("$extra")
                KFLAVOUR=$KFLAVOUR+$name
        fi
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
        command -v pahole >/dev/null || die "pahole is not installed (run: $0 deps)"
        ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG")
        KEY_TEXT=$(
                echo "recipe $RECIPE"
                echo "kernel $KFLAVOUR"
                echo "source $SRC_PKG $ver"
                echo "gcc $(gcc --version | head -n1)"
                # pahole turns the DWARF into the kernel's BTF (CONFIG_DEBUG_INFO_BTF)
                echo "pahole $(pahole --version)"
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
        KDIR=$CACHE/kernels/$KFLAVOUR-$ver-$KEY
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

# What a cold build costs: the slowest build-seconds of the kernels cached here, or
# the figure measured on a 2-core machine.
expected_build() {
        local last

        # the newest kernel's (its file has no newline at the end: cat would join them)
        last=$(ls -t "$CACHE"/kernels/*/build-seconds 2>/dev/null | head -n 1)
        [[ -n $last ]] && last=$(head -n 1 "$last")
        if [[ -n $last ]]; then
                echo "the last cold build here took ${last%.*} s"
        else
                echo "about 5 minutes on 2 idle cores, longer on a busy machine"
        fi
}

# build_progress T0 LOG: a line every 30 s while the kernel compiles (killed when it is done).
build_progress() {
        local t0=$1 log=$2 n

        while sleep 30; do
                n=$(grep -c '^  CC' "$log" 2>/dev/null || true)
                msg "kernel: $(elapsed "$t0") s so far, ${n:-0} files compiled ($(expected_build))"
        done
}

build_kernel() {
        local work src log p t0 f

        if [[ -f $KDIR/bzImage ]]; then
                KERNEL_HOW="cache hit"
                msg "kernel: cache hit $KDIR"
                return 0
        fi
        t0=$(now)
        work=$CACHE/build/$KFLAVOUR-$KEY
        src=$work/linux-source-6.12
        log=$work/build.log
        msg "kernel: not cached: building $KFLAVOUR once ($(expected_build)); later runs reuse it"
        msg "kernel: building $KFLAVOUR (key $KEY) in $work"
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
        build_progress "$t0" "$log" &
        local ticker=$!
        if ! nice -n 19 make -C "$src" ARCH=$ARCH -j"$JOBS" bzImage >>"$log" 2>&1; then
                kill "$ticker" 2>/dev/null
                grep -E 'error|Error' "$log" | tail -n 20 >&2 || true
                die "kernel: build failed (log: $log)"
        fi
        kill "$ticker" 2>/dev/null
        wait "$ticker" 2>/dev/null || true

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
        done < <(ls -1dt "$CACHE/kernels/$KFLAVOUR"-*/ 2>/dev/null | tail -n +$((KEEP_KERNELS + 1)))
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
# Runs /guest/run-suite.sh, which prints the HCBS-GUEST-RESULT marker (or,
# with hcbs.run=demo on the command line, make demo's /demo/guest.sh), then
# turns the machine off (qemu runs with -no-reboot, so a reboot ends it too).
export PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin
export HOME=/root
cd /
mount -t proc proc /proc 2>/dev/null
if grep -qw hcbs.run=demo /proc/cmdline; then
        sh /demo/guest.sh
        echo "HCBS-GUEST: demo exited $?"
else
        sh /guest/run-suite.sh
        echo "HCBS-GUEST: run-suite.sh exited $?"
fi
sync
# Not poweroff: it needs the ACPI interpreter (S5), which cannot load qemu's
# DSDT in this kernel (no PCI), so it would only halt the CPUs and qemu would
# run into the harness's timeout.  Under -no-reboot a reboot ends qemu.
reboot -f
EOF
        chmod 755 "$IRD_ROOT/init"
}

# build_spin OUT: the static SCHED_FIFO spinner from guest/spin.c (both guests).
build_spin() {
        gcc -static -O2 -Wall -Wextra -Werror -o "$1" "$HERE/guest/spin.c" ||
                die "cannot build guest/spin.c with gcc -static (libc6-dev installed?)"
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

        # The guest test scripts, make demo's session, and the spinner built statically from guest/spin.c.
        cp -a "$HERE/guest/." "$IRD_ROOT/guest/"
        mkdir -p "$IRD_ROOT/demo"
        cp "$REPO/tests/demo/session.sh" "$REPO/tests/demo/guest.sh" "$IRD_ROOT/demo/"
        spin=$stage/spin
        build_spin "$spin"
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

# run_qemu LOG ARGS...: run qemu-system-x86_64 ARGS under the timeout, the
# serial console to stdout and LOG; die on a timeout or a qemu error.
run_qemu() {
        local logf=$1 rc=0

        shift
        command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (run: $0 deps)"
        # a guest's deadline misses are read against the host's load
        msg "boot: host load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
        set +e
        timeout -k 10 "$QEMU_TIMEOUT" qemu-system-x86_64 \
                -accel tcg -smp 2 \
                -nodefaults -no-user-config -display none -no-reboot \
                -serial stdio "$@" \
                </dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$logf"
        rc=${PIPESTATUS[0]}
        set -e

        if ((rc == 124 || rc == 137)); then
                die "boot: guest timed out after ${QEMU_TIMEOUT}s (log: $logf)"
        fi
        ((rc == 0)) || die "boot: qemu exited with status $rc (log: $logf)"
}

# The kernel command line both guests share (each adds its own):
# - the console's log level: "quiet" alone (4) would hide KERN_WARNING, which
#   is the level of "WARNING: CPU:" reports, so the verdict below could not
#   see them; 5 shows warnings and hides notices;
# - tsc=reliable: under TCG the guest's TSC is the host's clock, the same on
#   every vCPU; the clocksource watchdog reads TSC and HPET at two moments that
#   a stalled vCPU can set milliseconds apart, and then moves timekeeping to
#   the HPET, whose every read is an emulated MMIO access: the later deadline
#   checks ran on it (the sizing suite's response times grew past the
#   analysed bounds);
# - which kernel this is and which suites to run (or hcbs.run=demo), for the
#   guest's scripts.
GUEST_RUN=
guest_kernel_args() {
        local console="console=ttyS0 quiet loglevel=5"

        [[ ${HCBS_QEMU_VERBOSE:-0} == 1 ]] && console="console=ttyS0"
        echo "$console tsc=reliable panic=-1 hcbs.kernel=$KERNEL${HCBS_GUEST_SUITES:+ hcbs.suites=$HCBS_GUEST_SUITES}${HCBS_MULTI_ROUNDS:+ hcbs.multi_rounds=$HCBS_MULTI_ROUNDS}${HCBS_SOAK_SECONDS:+ hcbs.soak=$HCBS_SOAK_SECONDS:${HCBS_SOAK_SEED:-}}${GUEST_RUN:+ hcbs.run=$GUEST_RUN}"
}

# check_guest_log LOG: fail on kernel panics, oopses and warnings; read the
# result marker into GUEST_PASSED / GUEST_FAILED.
check_guest_log() {
        local logf=$1 marker
        # lockdep and RCU reports (the debug kernel) start "WARNING: possible
        # ...", "WARNING: inconsistent ...", "WARNING: suspicious RCU usage".
        local bad='Kernel panic|BUG: |Oops:|general protection fault|WARNING: CPU: |WARNING: (possible|inconsistent|suspicious|bad unlock)|DEBUG_LOCKS_WARN_ON'

        if grep -qE "$bad" "$logf"; then
                grep -E "$bad" "$logf" | head -n 5 >&2
                die "boot: the guest kernel panicked, oopsed or warned (log: $logf)"
        fi
        marker=$(grep -E '^HCBS-GUEST-RESULT: [0-9]+ passed, [0-9]+ failed' "$logf" | tail -n1 || true)
        [[ -n $marker ]] || die "boot: no HCBS-GUEST-RESULT marker in the guest output (log: $logf)"
        [[ $marker =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]
        GUEST_PASSED=${BASH_REMATCH[1]}
        GUEST_FAILED=${BASH_REMATCH[2]}
}

# boot_and_run LOG: boot the kernel with the initramfs; check the log.
boot_and_run() {
        local logf=$1

        msg "boot: qemu (TCG, 2 CPUs, 512 MiB, timeout ${QEMU_TIMEOUT}s), console log: $logf"
        run_qemu "$logf" -m 512 \
                -kernel "$KDIR/bzImage" -initrd "$INITRAMFS" \
                -append "$(guest_kernel_args)"
        check_guest_log "$logf"
}

cmd_test() {
        local t0 t_kernel t_ird t_boot logf runs

        t0=$(now)
        cmd_deps
        QEMU_TIMEOUT=${QEMU_TIMEOUT:-$((600 + 2 * ${HCBS_SOAK_SECONDS:-0}))}
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
        logf=$runs/$(date +%Y%m%d-%H%M%S)-$KFLAVOUR.log
        ln -sfn "$logf" "$CACHE/last-run.log"
        t1=$(now)
        boot_and_run "$logf"
        t_boot=$(elapsed "$t1")

        msg "timing: deps+kernel ${t_kernel}s (${KERNEL_HOW}), initramfs ${t_ird}s, boot+suite ${t_boot}s, total $(elapsed "$t0")s"
        printf '%s kernel=%s key=%s kernel_how="%s" deps_kernel=%s initramfs=%s boot_suite=%s total=%s passed=%s failed=%s\n' \
                "$(date -Is)" "$KFLAVOUR" "$KEY" "$KERNEL_HOW" "$t_kernel" "$t_ird" "$t_boot" "$(elapsed "$t0")" \
                "$GUEST_PASSED" "$GUEST_FAILED" >>"$CACHE/timings.log"
        if ((GUEST_FAILED > 0 || GUEST_PASSED == 0)); then
                msg "FAILED: see the FAIL: lines above (log: $logf)"
                echo "hcbs-kernel-tests: $GUEST_PASSED passed, $GUEST_FAILED failed"
                exit 1
        fi
        echo "hcbs-kernel-tests: $GUEST_PASSED passed, $GUEST_FAILED failed"
}

# make demo KERNEL=hcbs (tests/demo/demo.sh): the busybox guest with make demo's
# session instead of the suite; its output goes to the terminal as it runs.
cmd_demo() {
        local t0 logf runs marker

        t0=$(now)
        cmd_deps
        QEMU_TIMEOUT=${QEMU_TIMEOUT:-600}
        select_series
        compute_key
        take_lock
        build_kernel
        build_initramfs
        runs=$CACHE/runs
        mkdir -p "$runs"
        logf=$runs/$(date +%Y%m%d-%H%M%S)-demo-$KERNEL.log
        GUEST_RUN=demo
        msg "boot: the demo under qemu (TCG, 2 CPUs, 512 MiB); console log: $logf"
        run_qemu "$logf" -m 512 -kernel "$KDIR/bzImage" -initrd "$INITRAMFS" -append "$(guest_kernel_args)"
        if grep -qE 'Kernel panic|BUG: |Oops:|general protection fault|WARNING: CPU: ' "$logf"; then
                die "demo: the guest kernel panicked, oopsed or warned (log: $logf)"
        fi
        marker=$(grep -E '^HCBS-DEMO-RESULT: ' "$logf" | tail -n 1 || true)
        msg "demo: ${marker:-no HCBS-DEMO-RESULT line} in $(elapsed "$t0") s (kernel: $KERNEL_HOW)"
        [[ $marker == "HCBS-DEMO-RESULT: ok" ]]
}

# ---------------------------------------------------------------- systemd guest: rootfs

# safe_rmtree DIR: rm -rf DIR, after unmounting anything below it (an
# interrupted debootstrap leaves proc and sys mounted in its target).
safe_rmtree() {
        local dir=$1 m

        [[ -e $dir ]] || return 0
        dir=$(realpath "$dir")
        [[ $dir == "$(realpath "$CACHE")"/* ]] || die "refusing to remove $dir: not below $CACHE"
        while IFS= read -r m; do
                m=$(printf '%b' "$m")
                warn "unmounting $m (left over from an interrupted run)"
                umount "$m" 2>/dev/null || umount -l "$m" || die "cannot unmount $m"
        done < <(awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts | sort -r)
        rm -rf --one-file-system "$dir"
}

# rootfs_configure ROOT: what the cached rootfs gets after debootstrap.  The
# text of this function is part of the rootfs key: editing it rebuilds.
# Test policy that may change often (the test unit, journald to the console,
# start timeouts) is not here but in guest-systemd/, copied in on each run.
rootfs_configure() {
        local r=$1 u

        echo hcbs-guest >"$r/etc/hostname" || return 1
        printf '127.0.0.1 localhost\n127.0.1.1 hcbs-guest\n' >"$r/etc/hosts" || return 1
        # A fixed machine id: the first boot is not a "first boot", so no
        # systemd-firstboot prompt on the console and no preset-all run.
        printf '4863627364207465737420677565737a\n' >"$r/etc/machine-id" || return 1
        mkdir -p "$r/var/lib/dbus" && ln -sfn /etc/machine-id "$r/var/lib/dbus/machine-id" || return 1
        # The kernel mounts /dev/vda rw (root= rw on its command line); no fstab
        # entry, so nothing waits for dev-vda.device or runs fsck.
        printf '# hcbsd qemu guest: / is /dev/vda, mounted rw by the kernel\n' >"$r/etc/fstab" || return 1
        # Units that need hardware, the network or a person, or only cost boot
        # time under TCG: gettys (also the serial getty the getty generator
        # would add for console=ttyS0), periodic maintenance, first-boot set-up.
        for u in getty.target getty@tty1.service serial-getty@ttyS0.service \
                console-getty.service systemd-firstboot.service \
                apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
                e2scrub_all.timer e2scrub_reap.service fstrim.timer \
                systemd-timesyncd.service systemd-networkd-wait-online.service; do
                ln -sfn /dev/null "$r/etc/systemd/system/$u" || return 1
        done
        # Smaller image, quicker mke2fs: no package lists, archives or docs.
        rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/* \
                "$r"/usr/share/doc/* "$r"/usr/share/man/* "$r"/usr/share/info/*
}

ROOTFS_KEY=
ROOTFS_TAR=
ROOTFS_HOW=

rootfs_key() {
        local text

        text=$(
                echo "rootfs recipe $ROOTFS_RECIPE"
                echo "suite $ROOTFS_SUITE"
                echo "packages ${ROOTFS_PACKAGES[*]}"
                echo "configure $(declare -f rootfs_configure | sha256sum | cut -d' ' -f1)"
        )
        ROOTFS_KEY=$(sha256sum <<<"$text" | cut -c1-16)
        ROOTFS_TAR=$CACHE/rootfs/$ROOTFS_SUITE-$ROOTFS_KEY.tar
}

# The rootfs has its own lock, so `harness.sh rootfs` can run while another
# run builds a kernel; systemd-test takes it inside the main lock.
take_rootfs_lock() {
        mkdir -p "$CACHE/rootfs" || die "cannot create $CACHE/rootfs"
        exec 8>"$CACHE/rootfs/.lock"
        if ! flock -n 8; then
                msg "rootfs: waiting for another rootfs build (lock $CACHE/rootfs/.lock)"
                flock -w 3600 8 || die "gave up waiting for $CACHE/rootfs/.lock"
        fi
}

build_rootfs() {
        local t0 work log f

        rootfs_key
        if [[ -f $ROOTFS_TAR ]]; then
                ROOTFS_HOW="cache hit"
                msg "rootfs: cache hit $ROOTFS_TAR"
                return 0
        fi
        command -v debootstrap >/dev/null || die "rootfs: debootstrap missing (run: $0 deps)"
        ((EUID == 0)) || die "rootfs: debootstrap needs root"
        t0=$(now)
        work=$CACHE/rootfs/build-$ROOTFS_KEY
        log=$CACHE/rootfs/build-$ROOTFS_KEY.log
        safe_rmtree "$work"
        mkdir -p "$work"
        : >"$log"
        msg "rootfs: debootstrap --variant=minbase $ROOTFS_SUITE from $MIRROR (+ ${ROOTFS_PACKAGES[*]}; log: $log)"
        if ! nice -n 19 debootstrap --variant=minbase \
                --include="$(IFS=,; echo "${ROOTFS_PACKAGES[*]}")" \
                "$ROOTFS_SUITE" "$work/root" "$MIRROR" >>"$log" 2>&1; then
                tail -n 20 "$log" >&2
                [[ -f $work/root/debootstrap/debootstrap.log ]] &&
                        tail -n 20 "$work/root/debootstrap/debootstrap.log" >&2
                safe_rmtree "$work"
                die "rootfs: debootstrap failed (log: $log)"
        fi
        msg "rootfs: configuring ($(elapsed "$t0") s so far)"
        rootfs_configure "$work/root" >>"$log" 2>&1 || die "rootfs: configuration failed (log: $log)"
        tar --numeric-owner --xattrs --xattrs-include='*' -C "$work/root" -cf "$ROOTFS_TAR.tmp" . ||
                die "rootfs: tar failed"
        mv "$ROOTFS_TAR.tmp" "$ROOTFS_TAR"
        mv "$log" "$ROOTFS_TAR.log"
        safe_rmtree "$work"
        # Keep the newest KEEP_ROOTFS rootfs tarballs.
        # shellcheck disable=SC2012
        while IFS= read -r f; do
                msg "rootfs: pruning old $f"
                rm -f "$f" "$f.log"
        done < <(ls -1t "$CACHE/rootfs/$ROOTFS_SUITE"-*.tar 2>/dev/null | tail -n +$((KEEP_ROOTFS + 1)))
        ROOTFS_HOW="built in $(elapsed "$t0") s"
        msg "rootfs: $ROOTFS_TAR ($(du -h "$ROOTFS_TAR" | cut -f1), $ROOTFS_HOW)"
}

cmd_rootfs() {
        take_rootfs_lock
        build_rootfs
}

# ---------------------------------------------------------------- systemd guest: hcbsd build

# The guest gets hcbsd from its Debian package, built here by `make deb` (the
# rootfs has no debhelper) and installed in the stage with `dpkg -i`, so the
# guest runs what an admin installs: /usr paths, units, bus policy, polkit
# action, man pages, completion and the maintainer scripts. The daemon's
# systemd code runs only here, so the package is an ASan+UBSan build
# (dpkg-buildflags' sanitize feature) and unstripped; lintian's verdict on it
# is in the log but fails nothing (make deb checks the real package). No
# dh_auto_test (nocheck): make test's ASan build has run the unit tests of
# the same sources, and here they cost 40 s.
ensure_guest_deb() {
        local log=$1 debs

        command -v make >/dev/null || die "guest package: make missing"
        msg "guest package: make deb DEB_DIR=${GUEST_DEB_DIR#"$REPO"/} (ASan+UBSan; log: $log)"
        if ! nice -n 10 env DEB_BUILD_MAINT_OPTIONS="hardening=+all sanitize=+address,+undefined" \
                DEB_CFLAGS_MAINT_APPEND=-fno-sanitize-recover=all DEB_BUILD_OPTIONS="nostrip nocheck" \
                make -C "$REPO" --no-print-directory deb DEB_DIR="$GUEST_DEB_DIR" LINTIAN_FAIL_ON=none >>"$log" 2>&1; then
                grep -E 'error|Error' "$log" | tail -n 20 >&2 || true
                die "guest package: make deb failed (log: $log)"
        fi
        debs=("$GUEST_DEB_DIR"/hcbsd_*.deb)
        ((${#debs[@]} == 1)) && [[ -f ${debs[0]} ]] ||
                die "guest package: expected one hcbsd_*.deb in $GUEST_DEB_DIR, found: ${debs[*]}"
        GUEST_DEB=${debs[0]}
        msg "guest package: $GUEST_DEB ($(du -h "$GUEST_DEB" | cut -f1))"
}

# ---------------------------------------------------------------- systemd guest: stage, image, boot

SD_DIR=
SD_IMG=

# stage_systemd_guest LOG: the cached rootfs + dpkg -i hcbsd + guest-systemd/,
# units enabled, then an ext4 image of it (mke2fs -d: no loop mount).
stage_systemd_guest() {
        local log=$1 stage gs=$HERE/guest-systemd t dest=/usr/local/lib/hcbs-test out

        SD_DIR=$CACHE/systemd
        stage=$SD_DIR/stage
        SD_IMG=$SD_DIR/disk-$KERNEL.img
        safe_rmtree "$stage"
        mkdir -p "$stage"
        tar --numeric-owner --xattrs --xattrs-include='*' -C "$stage" -xf "$ROOTFS_TAR" ||
                die "stage: cannot unpack $ROOTFS_TAR"

        # dpkg -i in the stage: the maintainer scripts run chrooted, see no
        # /run/systemd/system and /run/dbus there, and so only record state.
        install -m 644 "$GUEST_DEB" "$stage/tmp/hcbsd.deb"
        chroot "$stage" dpkg -i /tmp/hcbsd.deb >>"$log" 2>&1 ||
                { tail -n 20 "$log" >&2; die "stage: dpkg -i $(basename "$GUEST_DEB") failed (log: $log)"; }
        rm -f "$stage/tmp/hcbsd.deb"
        for t in /usr/sbin/hcbsd /usr/bin/hcbsctl /lib/systemd/system/hcbsd.service \
                /usr/share/man/man1/hcbsctl.1.gz /usr/share/bash-completion/completions/hcbsctl \
                /usr/share/containers/oci/hooks.d/hcbs-check.json /usr/share/containers/oci/hooks.d/hcbs-reserve.json \
                /usr/sbin/hcbs-exporter /lib/systemd/system/hcbs-exporter.socket /lib/systemd/system/hcbs-exporter.service \
                /usr/lib/sysusers.d/hcbs-exporter.conf; do
                [[ -e $stage$t ]] || die "stage: the package did not install $t"
        done
        # Every library hcbsd and hcbsctl need must be in the rootfs.
        if ! out=$(chroot "$stage" /usr/bin/ldd /usr/sbin/hcbsd /usr/bin/hcbsctl /usr/sbin/hcbs-exporter 2>&1) ||
                grep -q 'not found' <<<"$out"; then
                printf '%s\n' "$out" >&2
                die "stage: hcbsd/hcbsctl need libraries the rootfs lacks: add their packages to ROOTFS_PACKAGES"
        fi

        # guest-systemd/ (suites, their unit files), the check library of the
        # busybox guest, the spinner.
        install -d "$stage$dest/bin"
        cp -a "$gs/." "$stage$dest/"
        install -m 644 "$GUEST_DEB" "$stage$dest/hcbsd.deb"
        install -m 644 "$HERE/guest/lib.sh" "$stage$dest/lib.sh"
        build_spin "$SD_DIR/spin"
        install -m 755 "$SD_DIR/spin" "$stage$dest/bin/spin"
        # suite-stats.sh: the host's periodic load, and the comparison with cyclictest
        gcc -static -O2 -Wall -Wextra -Werror -o "$SD_DIR/stats-load" "$REPO/tests/integration/stats-load.c" ||
                die "cannot build tests/integration/stats-load.c with gcc -static"
        install -m 755 "$SD_DIR/stats-load" "$stage$dest/bin/stats-load"
        # suite-observe.sh: the sizing proofs' load generator
        gcc -static -O2 -Wall -Wextra -Werror -pthread -D_GNU_SOURCE -I"$REPO/lib" -o "$SD_DIR/hcbs-rtload" \
                "$REPO/tests/tools/hcbs-rtload.c" "$REPO/lib/duration.c" "$REPO/lib/strutil.c" ||
                die "cannot build tests/tools/hcbs-rtload.c with gcc -static"
        install -m 755 "$SD_DIR/hcbs-rtload" "$stage$dest/bin/hcbs-rtload"
        install -m 755 "$REPO/tests/tools/latency-compare.sh" "$stage$dest/bin/latency-compare.sh"
        # a process with two threads (suite-why.sh's leaf rule), static as the spinner
        gcc -static -pthread -O2 -Wall -Wextra -Werror -o "$SD_DIR/rt-threads" "$REPO/tests/integration/rt-threads.c" ||
                die "stage: cannot build tests/integration/rt-threads.c with gcc -static"
        install -m 755 "$SD_DIR/rt-threads" "$stage$dest/bin/rt-threads"
        install -m 644 "$gs/hcbs-vm-test.service" "$stage/etc/systemd/system/"
        install -D -m 644 "$gs/journald-console.conf" "$stage/etc/systemd/journald.conf.d/50-hcbs-test.conf"
        install -D -m 644 "$gs/system-timeouts.conf" "$stage/etc/systemd/system.conf.d/50-hcbs-test.conf"
        install -D -m 644 "$gs/hcbsd-sanitizers.conf" "$stage/etc/systemd/system/hcbsd.service.d/50-hcbs-test.conf"
        install -D -m 644 "$gs/hcbsd-sanitizers.conf" "$stage/etc/systemd/system/hcbs-exporter.service.d/50-hcbs-test.conf"
        # the NIC of the port forwards (boot_systemd), and whether the host runs the browser test
        install -D -m 644 "$gs/50-hcbs-test.network" "$stage/etc/systemd/network/50-hcbs-test.network"
        printf 'BROWSER_SKIP=%q\n' "$BROWSER_SKIP" >"$stage$dest/browser.conf"
        [[ -f $stage/usr/share/cockpit/hcbsd/manifest.json ]] || die "stage: the package did not install the Cockpit plugin"
        # cockpit.socket, which the cockpit packages enable, only when suite-cockpit.sh starts it: not at boot
        systemctl --root="$stage" disable cockpit.socket >>"$log" 2>&1
        systemctl --root="$stage" enable hcbsd.service hcbs-vm-test.service systemd-networkd.service >>"$log" 2>&1 ||
                { tail -n 5 "$log" >&2; die "stage: systemctl --root enable failed (log: $log)"; }

        rm -f "$SD_IMG"
        mke2fs -q -t ext4 -L hcbs-root -d "$stage" -F "$SD_IMG" "$DISK_SIZE" >>"$log" 2>&1 ||
                { tail -n 5 "$log" >&2; die "stage: mke2fs -d failed (log: $log)"; }
        safe_rmtree "$stage"
}

GUEST_TIMING=
# Why the host cannot run the browser test of suite-cockpit.sh ("" when it can).
BROWSER_SKIP=

# A TCP port free on 127.0.0.1 now.
free_port() {
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
                echo $((20000 + RANDOM % 30000))
}

boot_systemd() {
        local logf=$1 line port_ws port_report artifacts runner=

        # qemu's user network, restrict=on (the guest reaches nothing), forwards
        # 127.0.0.1 ports to the guest's cockpit-ws (9090) and to the port where
        # suite-cockpit.sh takes the browser's report (9099)
        port_ws=$(free_port)
        port_report=$(free_port)
        artifacts=${logf%.log}-browser
        if [[ -z $BROWSER_SKIP ]]; then
                mkdir -p "$artifacts"
                msg "browser: tests/browser/run.sh waits for the guest's cockpit-ws (https://127.0.0.1:$port_ws); screenshots in $artifacts"
                setsid "$REPO/tests/browser/run.sh" "$logf" "https://127.0.0.1:$port_ws" "$port_report" "$artifacts" \
                        >"$artifacts/run.log" 2>&1 </dev/null &
                runner=$!
        else
                msg "browser: SKIP: $BROWSER_SKIP"
        fi
        msg "boot: qemu (TCG, 2 CPUs, 1 GiB, virtio disk and NIC, systemd, timeout ${QEMU_TIMEOUT}s), console log: $logf"
        run_qemu "$logf" -m 1024 \
                -kernel "$KDIR/bzImage" \
                -drive "file=$SD_IMG,if=virtio,format=raw,cache=unsafe" \
                -netdev "user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:$port_ws-:9090,hostfwd=tcp:127.0.0.1:$port_report-:9099" \
                -device virtio-net-pci,netdev=net0 \
                -append "$(guest_kernel_args) root=/dev/vda rootfstype=ext4 rw init=/lib/systemd/systemd systemd.unit=multi-user.target"
        if [[ -n $runner ]]; then
                # it ends by itself once the guest finished; a guest that died early leaves it waiting
                # (set -e: a runner that ended already makes kill fail, a killed one wait)
                kill -- -"$runner" 2>/dev/null || true
                wait "$runner" 2>/dev/null || true
                ln -sfn "$artifacts" "$CACHE/last-browser"
        fi
        check_guest_log "$logf"
        # "HCBS-GUEST-TIMING: hcbsd_ready=9.1 multi_user=9.4 ..." (seconds of
        # CLOCK_MONOTONIC, which starts with the kernel)
        line=$(grep -E '^HCBS-GUEST-TIMING: ' "$logf" | tail -n1 || true)
        GUEST_TIMING=${line#HCBS-GUEST-TIMING: }
}

cmd_systemd_test() {
        local t0 t1 t_kernel t_rootfs t_build t_stage t_boot logf runs blog ready

        t0=$(now)
        cmd_deps
        QEMU_TIMEOUT=${QEMU_TIMEOUT:-1320}
        msg "$KERNEL_WHY"
        select_series
        compute_key
        take_lock
        build_kernel
        t_kernel=$(elapsed "$t0")

        t1=$(now)
        take_rootfs_lock
        build_rootfs
        t_rootfs=$(elapsed "$t1")

        mkdir -p "$CACHE/systemd"
        blog=$CACHE/systemd/stage.log
        : >"$blog"
        t1=$(now)
        ensure_guest_deb "$blog"
        t_build=$(elapsed "$t1")

        t1=$(now)
        BROWSER_SKIP=$("$REPO/tests/browser/check.sh") || true
        stage_systemd_guest "$blog"
        t_stage=$(elapsed "$t1")
        msg "stage: $SD_IMG ($(du -h "$SD_IMG" | cut -f1) used of $DISK_SIZE, ${t_stage}s)"

        runs=$CACHE/runs
        mkdir -p "$runs"
        logf=$runs/$(date +%Y%m%d-%H%M%S)-systemd-$KFLAVOUR.log
        ln -sfn "$logf" "$CACHE/last-run.log"
        t1=$(now)
        boot_systemd "$logf"
        t_boot=$(elapsed "$t1")

        ready=$(grep -oE 'hcbsd_ready=[^ ]+' <<<"$GUEST_TIMING" || true)
        msg "timing: deps+kernel ${t_kernel}s (${KERNEL_HOW}), rootfs ${t_rootfs}s (${ROOTFS_HOW}), guest build ${t_build}s, stage+image ${t_stage}s, boot+suite ${t_boot}s, total $(elapsed "$t0")s"
        msg "timing: in the guest (s since the kernel started): ${GUEST_TIMING:-none reported}"
        printf '%s guest=systemd kernel=%s key=%s kernel_how="%s" rootfs=%s rootfs_how="%s" deps_kernel=%s rootfs_s=%s guest_build=%s stage=%s boot_suite=%s total=%s %s passed=%s failed=%s\n' \
                "$(date -Is)" "$KFLAVOUR" "$KEY" "$KERNEL_HOW" "$ROOTFS_KEY" "$ROOTFS_HOW" "$t_kernel" "$t_rootfs" \
                "$t_build" "$t_stage" "$t_boot" "$(elapsed "$t0")" "${GUEST_TIMING:-guest_timing=none}" \
                "$GUEST_PASSED" "$GUEST_FAILED" >>"$CACHE/timings.log"
        [[ -n $ready ]] || warn "the guest reported no hcbsd_ready time (hcbsd never became ready?)"
        if ((GUEST_FAILED > 0 || GUEST_PASSED == 0)); then
                msg "FAILED: see the FAIL: lines above (log: $logf)"
                echo "hcbs-systemd-tests: $GUEST_PASSED passed, $GUEST_FAILED failed"
                exit 1
        fi
        echo "hcbs-systemd-tests: $GUEST_PASSED passed, $GUEST_FAILED failed"
}

cmd_status() {
        local other

        select_series
        if ! pkg_installed "$SRC_PKG" || [[ ! -f $SRC_TAR ]]; then
                msg "status: $SRC_PKG not installed: no kernel can be built or matched (run: $0 deps)"
                exit 1
        fi
        compute_key
        rootfs_key
        if [[ -f $ROOTFS_TAR ]]; then
                msg "status: systemd guest rootfs cached: $ROOTFS_TAR"
        else
                msg "status: systemd guest rootfs not cached (would be $ROOTFS_TAR; harness.sh rootfs builds it)"
        fi
        for other in "$CACHE"/kernels/*/bzImage; do
                [[ -f $other && $other != "$KDIR/bzImage" ]] && msg "status: other cached kernel: ${other%/bzImage}"
        done
        if [[ -f $KDIR/bzImage ]]; then
                msg "status: KERNEL=$KFLAVOUR: cached kernel for the current inputs: $KDIR/bzImage"
                exit 0
        fi
        msg "status: KERNEL=$KFLAVOUR: no cached kernel for the current inputs (would be $KDIR)"
        exit 1
}

main() {
        (($# == 1)) || usage
        case $1 in
        systemd-test) resolve_kernel auto ;;
        *)            resolve_kernel v2 ;;
        esac
        case $1 in
        deps)      cmd_deps ;;
        kernel)    cmd_kernel ;;
        initramfs) select_series; cmd_initramfs ;;
        test)      cmd_test ;;
        rootfs)    cmd_rootfs ;;
        systemd-test) cmd_systemd_test ;;
        status)    cmd_status ;;
        demo)      cmd_demo ;;
        -h|--help|help) usage ;;
        *)         usage ;;
        esac
}

main "$@"; exit $?   # one line: edits to this file during a run cannot be read past it
