/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hcbsd's Cockpit page: the tree of groups with each group's bandwidth and
 * the room its children have left, create / set / delete (hcbsd's reason
 * shown when it refuses), units' and containers' reservations, and per group
 * a live latency histogram and CPU-time share from GetStats.
 *
 * Every figure comes from org.hcbsd1 on the system bus through cockpit.dbus,
 * the API of dbus/org.hcbsd1.xml and nothing else. Calls go as root when the
 * user has Cockpit's administrative access (superuser "try"), else as the
 * user, and hcbsd asks polkit (org.hcbsd1.manage) without a prompt: a user
 * polkit does not allow sees hcbsd's PermissionDenied, as hcbsctl would.
 *
 * Plain JavaScript, no bundler: one page of a few hundred lines with no
 * dependency but Cockpit's own cockpit.js, installed as it is written.
 */
"use strict";

const BUS = "org.hcbsd1";
const PATH = "/org/hcbsd1";
const IFACE = "org.hcbsd1.Manager";
const STATS_EVERY_MS = 2000;
const SHARE_SAMPLES = 60;

const client = cockpit.dbus(BUS, { bus: "system", superuser: "try" });

/* A Manager method; type is the input signature. flags "": no interactive authorization, polkit decides. */
function call(method, args, type) {
    return client.call(PATH, IFACE, method, args, { type, flags: "" });
}

function $(id) {
    return document.getElementById(id);
}

/* An element with text (never HTML: names come from the bus). */
function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null)
        e.textContent = String(text);
    if (cls)
        e.className = cls;
    return e;
}

/* ---- durations, as hcbsctl reads and writes them ---- */

const UNITS = { us: 1, ms: 1000, s: 1000000 };

/* "2ms" -> 2000 (microseconds); a bare number is microseconds; null when not a duration. */
function parseDuration(text) {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(us|ms|s)?\s*$/.exec(text);
    if (!m)
        return null;
    const us = Math.round(parseFloat(m[1]) * UNITS[m[2] || "us"]);
    return Number.isSafeInteger(us) ? us : null;
}

function formatDuration(us) {
    if (us % 1000000 === 0 && us > 0)
        return (us / 1000000) + "s";
    if (us % 1000 === 0 && us > 0)
        return (us / 1000) + "ms";
    return us + "us";
}

function formatNs(ns) {
    if (ns >= 1e9)
        return (ns / 1e9).toFixed(2) + "s";
    if (ns >= 1e6)
        return (ns / 1e6).toFixed(2) + "ms";
    if (ns >= 1e3)
        return (ns / 1e3).toFixed(1) + "us";
    return ns + "ns";
}

function percent(fraction) {
    return (fraction * 100).toFixed(1) + "%";
}

/* ---- messages ---- */

/* What a failed call says: hcbsd's error name (short) and its sentence, or Cockpit's problem. */
function describeError(e) {
    if (e && e.name) {
        const short = e.name.replace(/^org\.hcbsd1\.Error\./, "");
        return short + ": " + (e.message || "");
    }
    if (e && e.problem)
        return "Cockpit: " + e.problem + (e.message ? " (" + e.message + ")" : "");
    return String(e && e.message ? e.message : e);
}

function showMessage(text, kind) {
    const m = $("message");
    m.textContent = text;
    m.className = kind;
    m.hidden = false;
}

/* ---- state ---- */

const state = {
    manager: {},
    groups: [],     /* { name, runtime, period, leaf, procs, rt } parents first */
    units: [],      /* { unit, cgroup, runtime, period, policy, priority, container } */
    selected: null, /* the group (or unit) whose statistics are shown */
    editing: null,  /* the group the form sets, or null to create */
    samples: [],    /* share over the last intervals of the selected group */
    last: null,     /* the previous GetStats of the selected group */
};

function bandwidth(runtime, period) {
    return period > 0 && runtime <= period ? runtime / period : 0;
}

function parentOf(name) {
    const i = name.lastIndexOf("/");
    return i < 0 ? "" : name.slice(0, i);
}

function depthOf(name) {
    return name.split("/").length - 1;
}

/* ---- reading hcbsd ---- */

function readManager() {
    return client.call(PATH, "org.freedesktop.DBus.Properties", "GetAll", [IFACE], { type: "s" })
            .then(([props]) => {
                const m = {};
                for (const k in props)
                    m[k] = props[k].v;
                state.manager = m;
            });
}

function readGroups() {
    return call("ListGroups", [], "").then(([list]) => {
        state.groups = list.map(([name, runtime, period, leaf, procs, rt]) => ({ name, runtime, period, leaf, procs, rt }));
    });
}

function readUnits() {
    const row = ([unit, cgroup, runtime, period, policy, priority]) => ({ unit, cgroup, runtime, period, policy, priority });
    return Promise.all([call("ListUnits", [], ""), call("ListContainers", [], "")]).then(([[units], [containers]]) => {
        const isContainer = new Set(containers.map(c => c[0]));
        state.units = units.map(u => Object.assign(row(u), { container: isContainer.has(u[0]) }));
    });
}

let refreshing = null;
let refreshAgain = false;

/* Reads everything again; calls made meanwhile are folded into one more read. */
function refresh() {
    if (refreshing) {
        refreshAgain = true;
        return refreshing;
    }
    refreshing = Promise.all([readManager(), readGroups(), readUnits()])
            .then(render)
            .catch(e => {
                $("manager").textContent = "hcbsd does not answer: " + describeError(e);
            })
            .finally(() => {
                refreshing = null;
                if (refreshAgain) {
                    refreshAgain = false;
                    refresh();
                }
            });
    return refreshing;
}

/* ---- rendering ---- */

function bar(fraction, cls) {
    const outer = el("div", null, "bar " + (cls || ""));
    const inner = el("div", null, "fill");
    inner.style.width = Math.min(100, Math.max(0, fraction * 100)) + "%";
    outer.appendChild(inner);
    return outer;
}

function renderManager() {
    const m = state.manager;
    const cap = bandwidth(m.CapacityRuntime, m.CapacityPeriod);
    const text = "Kernel interface " + m.KernelInterface + " · capacity " + percent(cap) + " of each CPU (" +
        formatDuration(m.CapacityRuntime) + " every " + formatDuration(m.CapacityPeriod) + ") · allocated " +
        percent(m.AllocatedBandwidth) + " · free " + percent(Math.max(0, cap - m.AllocatedBandwidth)) +
        " · " + m.GroupCount + " group(s) · statistics " + m.StatsBackend +
        (m.StatsBackendReason ? " (" + m.StatsBackendReason + ")" : "");
    $("manager").textContent = text;
}

/* Bandwidth held by the direct children of each group ("" for hcbsd's root). */
function childrenBandwidth() {
    const held = new Map();
    for (const g of state.groups) {
        const p = parentOf(g.name);
        held.set(p, (held.get(p) || 0) + bandwidth(g.runtime, g.period));
    }
    return held;
}

function renderTree() {
    const body = $("tree").tBodies[0];
    const held = childrenBandwidth();
    const m = state.manager;
    const cap = bandwidth(m.CapacityRuntime, m.CapacityPeriod);
    body.replaceChildren();

    /* hcbsd's root: its capacity, and what groups, units and containers leave of it */
    const root = el("tr", null, "root");
    root.appendChild(el("td", "(hcbsd's root)"));
    root.appendChild(el("td", formatDuration(m.CapacityRuntime) + " / " + formatDuration(m.CapacityPeriod)));
    const rootBw = el("td");
    rootBw.appendChild(bar(cap));
    rootBw.appendChild(el("span", percent(cap)));
    root.appendChild(rootBw);
    const rootFree = el("td");
    rootFree.appendChild(bar(cap > 0 ? Math.max(0, cap - m.AllocatedBandwidth) / cap : 0, "free"));
    rootFree.appendChild(el("span", percent(Math.max(0, cap - m.AllocatedBandwidth)) + " free"));
    root.appendChild(rootFree);
    root.appendChild(el("td"));
    root.appendChild(el("td"));
    root.appendChild(el("td"));
    body.appendChild(root);

    for (const g of state.groups) {
        const bw = bandwidth(g.runtime, g.period);
        const tr = el("tr");
        tr.dataset.group = g.name;
        if (state.selected === g.name)
            tr.classList.add("selected");
        const name = el("td");
        const link = el("button", g.name.slice(g.name.lastIndexOf("/") + 1), "link");
        link.title = "statistics of " + g.name;
        link.style.marginLeft = (depthOf(g.name) * 1.5) + "em";
        link.addEventListener("click", () => select(g.name));
        name.appendChild(link);
        tr.appendChild(name);
        tr.appendChild(el("td", g.period ? formatDuration(g.runtime) + " / " + formatDuration(g.period) : "max"));
        const bwCell = el("td");
        bwCell.appendChild(bar(bw));
        bwCell.appendChild(el("span", percent(bw)));
        tr.appendChild(bwCell);
        const freeCell = el("td");
        if (!g.leaf) {
            const free = Math.max(0, bw - (held.get(g.name) || 0));
            freeCell.appendChild(bar(bw > 0 ? free / bw : 0, "free"));
            freeCell.appendChild(el("span", percent(free) + " free"));
        }
        tr.appendChild(freeCell);
        tr.appendChild(el("td", g.procs));
        tr.appendChild(el("td", g.rt));
        const actions = el("td", null, "actions");
        const set = el("button", "Set", "set");
        set.addEventListener("click", () => startEdit(g));
        const del = el("button", "Delete", "delete");
        del.dataset.group = g.name;
        del.addEventListener("click", () => deleteGroup(g.name));
        actions.appendChild(set);
        actions.appendChild(del);
        tr.appendChild(actions);
        body.appendChild(tr);
    }
}

function renderUnits() {
    const body = $("units").tBodies[0];
    body.replaceChildren();
    if (state.units.length === 0) {
        const tr = el("tr");
        const td = el("td", "No unit or container holds a reservation.", "empty");
        td.colSpan = 6;
        tr.appendChild(td);
        body.appendChild(tr);
        return;
    }
    for (const u of state.units) {
        const tr = el("tr");
        const name = el("td");
        const link = el("button", u.unit, "link");
        link.addEventListener("click", () => select(u.unit));
        name.appendChild(link);
        tr.appendChild(name);
        tr.appendChild(el("td", u.container ? "container" : "service"));
        tr.appendChild(el("td", u.cgroup));
        tr.appendChild(el("td", formatDuration(u.runtime) + " / " + formatDuration(u.period)));
        const bwCell = el("td");
        const bw = bandwidth(u.runtime, u.period);
        bwCell.appendChild(bar(bw));
        bwCell.appendChild(el("span", percent(bw)));
        tr.appendChild(bwCell);
        tr.appendChild(el("td", u.policy === "fifo" || u.policy === "rr" ? u.policy + " " + u.priority : u.policy));
        body.appendChild(tr);
    }
}

function render() {
    renderManager();
    renderTree();
    renderUnits();
    if (state.selected && !state.groups.some(g => g.name === state.selected) &&
        !state.units.some(u => u.unit === state.selected))
        select(null);
}

/* ---- create, set, delete ---- */

function startEdit(g) {
    state.editing = g ? g.name : null;
    $("edit-title").textContent = g ? "Set " + g.name : "Create a group";
    $("edit-name").value = g ? g.name : "";
    $("edit-name").readOnly = !!g;
    $("edit-runtime").value = g ? formatDuration(g.runtime) : "";
    $("edit-period").value = g ? formatDuration(g.period) : "";
    $("edit-persistent").disabled = !!g;
    $("edit-submit").textContent = g ? "Set" : "Create";
    $("edit-cancel").hidden = !g;
}

function submitEdit(event) {
    event.preventDefault();
    const name = $("edit-name").value.trim();
    const runtime = parseDuration($("edit-runtime").value);
    const period = parseDuration($("edit-period").value);
    if (runtime === null || period === null) {
        showMessage("Runtime and period are durations: 500us, 2ms, 1s.", "refusal");
        return;
    }
    const done = () => {
        showMessage((state.editing ? "Set " : "Created ") + name + ": " + formatDuration(runtime) + " every " +
                    formatDuration(period) + ".", "success");
        startEdit(null);
        return refresh();
    };
    const failed = e => showMessage("hcbsd refused: " + describeError(e), "refusal");
    if (state.editing)
        call("SetBandwidth", [name, runtime, period, {}], "stta{sv}").then(done, failed);
    else
        call("CreateGroup", [name, runtime, period, $("edit-persistent").checked ? { persistent: { t: "b", v: true } } : {}],
             "stta{sv}").then(done, failed);
}

function deleteGroup(name) {
    call("DeleteGroup", [name, {}], "sa{sv}")
            .then(() => {
                showMessage("Deleted " + name + ".", "success");
                return refresh();
            }, e => showMessage("hcbsd refused: " + describeError(e), "refusal"));
}

/* ---- statistics of one group or unit, live ---- */

let statsTimer = null;

function select(name) {
    state.selected = name;
    state.samples = [];
    state.last = null;
    for (const tr of $("tree").tBodies[0].rows)
        tr.classList.toggle("selected", tr.dataset.group === name);
    $("stats").hidden = !name;
    clearTimeout(statsTimer);
    if (name) {
        $("stats-title").textContent = "Statistics of " + name;
        pollStats();
    }
}

function value(stats, key) {
    return stats[key] ? stats[key].v : undefined;
}

function pollStats() {
    const name = state.selected;
    call("GetStats", [name], "s")
            .then(([stats]) => {
                if (name !== state.selected)
                    return;
                renderStats(stats);
            }, e => {
                $("stats-summary").textContent = describeError(e);
            })
            .finally(() => {
                if (name === state.selected)
                    statsTimer = setTimeout(pollStats, STATS_EVERY_MS);
            });
}

function renderStats(stats) {
    const rt = value(stats, "rt_time_ns"), win = value(stats, "window_ns");
    const runtime = value(stats, "runtime_us"), period = value(stats, "period_us");
    if (rt === undefined) {
        $("stats-summary").textContent = "No wakeup latency or RT CPU time: the statistics backend is " +
            state.manager.StatsBackend + (state.manager.StatsBackendReason ? " (" + state.manager.StatsBackendReason + ")" : "") +
            "; the kernel's cpu.stat: " + Object.keys(stats).filter(k => /usec|nr_/.test(k)).map(k => k + " " + value(stats, k)).join(", ");
        drawHistogram([]);
        drawShare();
        return;
    }
    /* the share over the last interval, as hcbsctl stats --watch shows it */
    if (state.last && win > state.last.win && runtime > 0 && period > 0)
        state.samples.push((rt - state.last.rt) / ((win - state.last.win) * runtime / period));
    state.samples = state.samples.slice(-SHARE_SAMPLES);
    state.last = { rt, win };
    $("stats-summary").textContent = value(stats, "wakeups") + " wakeups · p50 " + formatNs(value(stats, "latency_p50_ns")) +
        " · p99 " + formatNs(value(stats, "latency_p99_ns")) + " · max " + formatNs(value(stats, "latency_max_ns")) +
        " · RT CPU time " + formatNs(rt) + " · preemptions " + value(stats, "preemptions");
    drawHistogram(value(stats, "latency_buckets") || []);
    drawShare();
}

const SVG = "http://www.w3.org/2000/svg";

function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs)
        e.setAttribute(k, attrs[k]);
    if (text !== undefined)
        e.textContent = text;
    return e;
}

/* One bar per non-empty bucket, in order, heights scaled to the fullest. */
function drawHistogram(buckets) {
    const svg = $("histogram");
    svg.replaceChildren();
    if (buckets.length === 0) {
        svg.appendChild(svgEl("text", { x: 200, y: 80, "text-anchor": "middle", class: "none" }, "no wakeups counted"));
        return;
    }
    const most = Math.max(...buckets.map(b => b[2]));
    const w = 380 / buckets.length;
    buckets.forEach(([lo, hi, count], i) => {
        const h = most ? (count / most) * 130 : 0;
        const r = svgEl("rect", { x: 10 + i * w, y: 140 - h, width: Math.max(1, w - 1), height: h, class: "bucket" });
        r.appendChild(svgEl("title", {}, formatNs(lo) + " – " + formatNs(hi) + ": " + count));
        svg.appendChild(r);
    });
    svg.appendChild(svgEl("text", { x: 10, y: 156 }, formatNs(buckets[0][0])));
    svg.appendChild(svgEl("text", { x: 390, y: 156, "text-anchor": "end" }, formatNs(buckets[buckets.length - 1][1])));
}

/* The share of the reservation used, one point per interval; the dashed line is 100%. */
function drawShare() {
    const svg = $("share");
    const s = state.samples;
    svg.replaceChildren();
    const top = Math.max(1, ...s) * 1.1;
    const y = v => 140 - (v / top) * 130;
    svg.appendChild(svgEl("line", { x1: 10, x2: 390, y1: y(1), y2: y(1), class: "full" }));
    svg.appendChild(svgEl("text", { x: 388, y: y(1) - 4, "text-anchor": "end" }, "100% of the reservation"));
    if (s.length < 2) {
        svg.appendChild(svgEl("text", { x: 200, y: 80, "text-anchor": "middle", class: "none" }, "measuring…"));
        return;
    }
    const step = 380 / (SHARE_SAMPLES - 1);
    const points = s.map((v, i) => (10 + (SHARE_SAMPLES - s.length + i) * step) + "," + y(v)).join(" ");
    svg.appendChild(svgEl("polyline", { points, class: "share" }));
    svg.appendChild(svgEl("text", { x: 10, y: 156 }, "now " + percent(s[s.length - 1])));
}

/* ---- start ---- */

let pending = null;

/* Signals come in bursts (a create sends three): one refresh for a burst. */
function refreshSoon() {
    clearTimeout(pending);
    pending = setTimeout(refresh, 150);
}

document.addEventListener("DOMContentLoaded", () => {
    $("edit").addEventListener("submit", submitEdit);
    $("edit-cancel").addEventListener("click", () => startEdit(null));
    client.subscribe({ interface: IFACE, path: PATH }, refreshSoon);
    client.subscribe({ interface: "org.freedesktop.DBus.Properties", path: PATH }, refreshSoon);
    client.addEventListener("owner", (event, owner) => {
        if (owner === null)
            $("manager").textContent = "hcbsd is not running (systemctl start hcbsd, or any hcbsctl call starts it).";
        else
            refresh();
    });
    refresh().then(() => {
        document.body.dataset.ready = "1";
    });
});
