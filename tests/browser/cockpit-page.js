// SPDX-License-Identifier: LGPL-2.1-or-later
//
// hcbsd's Cockpit page in Debian's Chromium, through playwright-core (no
// browser of its own: executablePath /usr/bin/chromium), against a real
// cockpit-ws and hcbsd (the systemd guest, guest-systemd/suite-cockpit.sh,
// which creates the users and the polkit rule):
//   1. hcbsweb logs in, opens "RT bandwidth" from Cockpit's menu, creates
//      group "browser", is refused "browser-big" (an over-commit) with
//      hcbsd's InsufficientBandwidth reason on the page, sees the group's
//      statistics, deletes it;
//   2. hcbsviewer, whom polkit does not allow org.hcbsd1.manage, sees the
//      page and is refused a create with hcbsd's PermissionDenied.
// Prints PASS:/FAIL:/INFO: lines and keeps a screenshot of each step in
// ARTIFACTS.
//
// usage: node cockpit-page.js URL ARTIFACTS   (URL: https://127.0.0.1:PORT)
"use strict";

const { execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const [url, artifacts] = process.argv.slice(2);
if (!url || !artifacts) {
    console.error("usage: node cockpit-page.js URL ARTIFACTS");
    process.exit(2);
}
const WAIT = 90000; // ms for anything to appear: cockpit-ws and hcbsd run under TCG
const PAGE_FRAME = 'iframe[name="cockpit1:localhost/hcbsd"]';

let failed = 0;
let shot = 0;
const pass = what => console.log("PASS: browser: " + what);
const fail = (what, why) => {
    failed++;
    console.log("FAIL: browser: " + what + ": " + String(why).split("\n")[0]);
};

async function screenshot(page, name) {
    const file = path.join(artifacts, String(++shot).padStart(2, "0") + "-" + name + ".png");
    await page.screenshot({ path: file, fullPage: true }).catch(() => {});
    return file;
}

// check WHAT FN: FN's promise resolving is the pass; its error the failure (with a screenshot)
async function check(page, what, name, fn) {
    try {
        await fn();
        pass(what);
        await screenshot(page, name);
        return true;
    } catch (e) {
        fail(what, e.message || e);
        await screenshot(page, "failed-" + name);
        return false;
    }
}

async function login(page, user, password) {
    await page.goto(url + "/", { waitUntil: "domcontentloaded", timeout: WAIT });
    await page.fill("#login-user-input", user, { timeout: WAIT });
    await page.fill("#login-password-input", password);
    await page.click("#login-button");
    // the shell's navigation, once logged in
    await page.getByRole("link", { name: "RT bandwidth" }).first().waitFor({ timeout: WAIT });
}

// opens the page from the menu; returns its frame once it has read hcbsd
async function openPage(page) {
    await page.getByRole("link", { name: "RT bandwidth" }).first().click();
    const handle = await page.waitForSelector(PAGE_FRAME, { timeout: WAIT });
    const frame = await handle.contentFrame();
    await frame.waitForSelector('body[data-ready="1"]', { timeout: WAIT });
    return frame;
}

async function create(frame, name, runtime, period) {
    await frame.fill("#edit-name", name);
    await frame.fill("#edit-runtime", runtime);
    await frame.fill("#edit-period", period);
    await frame.click("#edit-submit");
}

async function messageMatching(frame, cls, re) {
    await frame.waitForFunction(([c, r]) => {
        const m = document.getElementById("message");
        return m && !m.hidden && m.className === c && new RegExp(r).test(m.textContent);
    }, [cls, re.source], { timeout: WAIT });
    return frame.textContent("#message");
}

async function main() {
    fs.mkdirSync(artifacts, { recursive: true });
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), "hcbs-chromium-"));
    const context = await chromium.launchPersistentContext(profile, {
        executablePath: "/usr/bin/chromium",
        headless: true,
        ignoreHTTPSErrors: true, // cockpit-ws's self-signed certificate
        viewport: { width: 1280, height: 1000 },
        args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--no-first-run"],
    });
    try {
        const page = context.pages()[0] || await context.newPage();
        page.setDefaultTimeout(WAIT);
        page.on("pageerror", e => console.log("INFO: browser: page error: " + e.message));
        console.log("INFO: browser: " + execFileSync("/usr/bin/chromium", ["--version"]).toString().trim() + " at " + url);

        // 1. a member of the group polkit allows
        if (!await check(page, "hcbsweb logs in to Cockpit, whose menu has RT bandwidth", "logged-in",
                         () => login(page, "hcbsweb", "hcbs-web-pw")))
            return;
        let frame;
        if (!await check(page, "the page shows hcbsd's root and capacity", "page", async () => {
            frame = await openPage(page);
            const summary = await frame.textContent("#manager");
            if (!/Kernel interface \S+ · capacity [\d.]+%/.test(summary))
                throw new Error("summary: " + summary);
            console.log("INFO: browser: " + summary);
        }))
            return;
        await check(page, "hcbsweb creates group browser 2ms/10ms and it appears in the tree at 20.0%", "created", async () => {
            await create(frame, "browser", "2ms", "10ms");
            await messageMatching(frame, "success", /^Created browser/);
            const row = await frame.waitForSelector('tr[data-group="browser"]', { timeout: WAIT });
            const text = await row.textContent();
            if (!text.includes("20.0%") || !text.includes("2ms / 10ms"))
                throw new Error("row: " + text);
        });
        await check(page, "an over-commit is refused with hcbsd's reason on the page", "refused", async () => {
            await create(frame, "browser-big", "9ms", "10ms");
            /* beyond Capacity=: the pool's reason (hcbsd's root holds only what is in use, so "0.0% free" there
             * would contradict the page's own free figure) */
            const m = await messageMatching(frame, "refusal",
                                            /InsufficientBandwidth: browser-big needs 90\.0% more per CPU; \S+ has [0-9.]+% free of its Capacity=/);
            console.log("INFO: browser: the page says: " + m);
            if (await frame.$('tr[data-group="browser-big"]'))
                throw new Error("browser-big is in the tree");
        });
        await check(page, "the group's statistics show (histogram and CPU-time share)", "statistics", async () => {
            await frame.click('tr[data-group="browser"] button.link');
            await frame.waitForSelector("#stats:not([hidden])", { timeout: WAIT });
            await frame.waitForFunction(() => document.getElementById("stats-summary").textContent.length > 0,
                                        null, { timeout: WAIT });
            await frame.waitForSelector("#histogram text, #histogram rect", { timeout: WAIT });
            console.log("INFO: browser: statistics: " + await frame.textContent("#stats-summary"));
        });
        await check(page, "hcbsweb deletes browser and it leaves the tree", "deleted", async () => {
            await frame.click('button.delete[data-group="browser"]');
            await messageMatching(frame, "success", /^Deleted browser/);
            await frame.waitForSelector('tr[data-group="browser"]', { state: "detached", timeout: WAIT });
        });

        // 2. a user polkit does not allow
        await context.clearCookies();
        if (!await check(page, "hcbsviewer logs in", "viewer-logged-in", () => login(page, "hcbsviewer", "hcbs-viewer-pw")))
            return;
        await check(page, "hcbsviewer sees the page, and polkit's refusal of a create, through hcbsd", "viewer-refused",
                    async () => {
                        frame = await openPage(page);
                        await create(frame, "browser", "2ms", "10ms");
                        const m = await messageMatching(frame, "refusal", /PermissionDenied: /);
                        console.log("INFO: browser: the page says: " + m);
                    });
    } finally {
        await context.close();
        fs.rmSync(profile, { recursive: true, force: true });
    }
}

main()
        .catch(e => fail("the browser test", e.stack || e))
        .finally(() => {
            console.log("INFO: browser: screenshots in " + artifacts);
            process.exitCode = failed ? 1 : 0;
        });
