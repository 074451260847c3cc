/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * GetStats()'s reply (an open-ended a{sv}, dbus/org.hcbsd1.xml) read into
 * HcbsStats (lib/metrics.h), for hcbsctl and hcbs-exporter: every value of
 * a basic type, latency_buckets (a(ttt)) and servers (a(uttt): per CPU).
 * Values of other types are skipped, so the dictionary can grow.
 */

#include <systemd/sd-bus.h>

#include "metrics.h"

typedef struct HcbsStatsReply {
        sd_bus_message *reply; /* the strings of s point into it */
        HcbsStats s;
} HcbsStatsReply;

/* Reads reply (taking a reference) into ret; -EBADMSG, -ENOMEM or sd-bus' error. */
int hcbs_stats_reply_read(sd_bus_message *reply, HcbsStatsReply *ret);
void hcbs_stats_reply_done(HcbsStatsReply *r);
