/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan journal RUNTIMEDIR/plan (daemon/journal.c): the input is the
 * file, replayed by journal_replay() against fake-cgroupfs.c, which writes
 * nothing and aborts on a path that would leave the cgroup root. A replay
 * applies at most two operations per line (a write and a directory
 * operation), and one that succeeds leaves no plan behind. The scope is
 * hcbsd's under systemd: its root below hcbsd.service, in the pool
 * hcbs.slice whose children are units' cgroups.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "fake-cgroupfs.h"
#include "fuzz-util.h"
#include "journal.h"
#include "log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
        /* every message is formatted; run with -close_fd_mask=2 to hide them */
        log_set_max_level(LOG_DEBUG);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const JournalScope scope = { .root = "hcbs.slice/hcbsd.service/groups", .pool = "hcbs.slice" };
        _cleanup_(cgroupfs_freep) CgroupFs *fs = NULL;
        char dir[512];
        size_t lines = 0;
        int r;

        if (size > 64 * 1024)
                return 0;
        for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
        fuzz_mkdir("state");
        fuzz_write_file("state/" JOURNAL_FILE, data, size);
        snprintf(dir, sizeof(dir), "%s", fuzz_path("state"));
        if (fake_cgroupfs_new(size && (data[0] & 1) ? HCBS_IFACE_RTMAX : HCBS_IFACE_RFC1, &fs) < 0)
                abort();

        /* any answer will do (a bad file is refused, or kept aside); what it writes is what counts */
        r = journal_replay(dir, fs, &scope);
        fuzz_check(fake_cgroupfs_ops(fs) <= 2 * (lines + 1), "%u kernel operations for %zu lines",
                   fake_cgroupfs_ops(fs), lines);
        if (r >= 0) {
                fuzz_check(access(fuzz_path("state/" JOURNAL_FILE), F_OK) < 0, "the plan survived its replay");
                fuzz_check((size_t) r <= lines + 1, "%d undo ops from %zu lines", r, lines);
        }
        fuzz_rm_rf("state");
        return 0;
}
