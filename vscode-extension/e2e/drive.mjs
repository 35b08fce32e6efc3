// Drives code-server from headless Chromium (playwright-core): the TritonRL workflow as a person would
// do it. Usage: node drive.mjs URL WORK_DIR OUT_DIR REPO (run.sh passes them). Exits non-zero on the
// first step that does not happen; each key step leaves a screenshot in OUT_DIR.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const [url, work, out, repo] = process.argv.slice(2);
const require = createRequire(join(process.env.NODE_PATH ?? ".", "x.js"));
const { chromium } = require("playwright-core");

const t0 = Date.now();
const log = (msg) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${msg}`);
let shot = 0;
const fail = (msg) => {
  throw new Error(msg);
};

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
const snap = async (name) => {
  const file = join(out, `${String(++shot).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${file.slice(out.length + 1)}`);
};
const palette = async (text) => {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`>${text}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: text }).first().waitFor({ timeout: 15000 });
  await page.keyboard.press("Enter");
};
const gotoLine = async (n) => {
  await page.keyboard.press("Control+G");
  await page.locator(".quick-input-widget input").fill(`:${n}`);
  await page.keyboard.press("Enter");
  await page.waitForTimeout(500);
};
// waits until a status bar item's text matches `re` (evaluated in the page)
const waitStatus = (re, timeout) => page.waitForFunction(([src, flags]) => [...document.querySelectorAll(".statusbar-item")]
  .some((e) => new RegExp(src, flags).test(e.textContent ?? "")), [re.source, re.flags], { timeout });
const message = async (loc) => (await loc.locator(".notification-list-item-message").first().innerText()).trim();
const toast = (text) => page.locator(".notification-toast", { hasText: text }).first();
const status = page.locator(".statusbar-item", { hasText: "TritonRL" }).first();

try {
  log(`open ${url}`);
  await page.goto(url);
  await page.locator(".monaco-workbench").waitFor({ timeout: 120000 });
  await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: 60000 }).catch(() => {});
  log("workbench loaded");

  // open the file with the module
  await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "mod.py" }).first().click();
  await page.locator(".monaco-editor .view-lines", { hasText: "class MyReLU" }).first().waitFor({ timeout: 30000 });
  log("mod.py open");
  await status.waitFor({ timeout: 60000 });
  await waitStatus(/TritonRL: relu-canned @ .* · cpu · idle/, 90000);
  log(`status bar: ${(await status.textContent())?.trim()}`);
  await snap("server-running");

  // cursor inside the class, then the code action menu (Ctrl+.)
  await gotoLine(12);
  await page.keyboard.press("Control+.");
  const item = page.locator(".action-widget", { hasText: "Generate Triton kernel for MyReLU" }).first();
  if (!(await item.isVisible().catch(() => false))) {
    await item.waitFor({ timeout: 5000 }).catch(() => {});
  }
  if (!(await item.isVisible().catch(() => false))) {
    log("Ctrl+. shows quick fixes only here; using Refactor… instead");
    await page.keyboard.press("Escape");
    await palette("Refactor...");
    await item.waitFor({ timeout: 15000 });
  }
  await snap("code-action-menu");
  await page.locator(".action-widget .monaco-list-row", { hasText: "Generate Triton kernel for MyReLU" }).first().click();
  log("code action chosen: Generate Triton kernel for MyReLU");

  // progress: the notification and the status bar follow the server's work-done progress
  await toast("TritonRL: MyReLU").waitFor({ timeout: 30000 });
  await waitStatus(/TritonRL: MyReLU — (generating|verifying)/, 30000);
  log(`progress: ${await message(toast("TritonRL: MyReLU"))} | status: ${(await status.textContent())?.trim()}`);
  await snap("progress");
  await waitStatus(/TritonRL: MyReLU — verifying/, 60000);
  log(`status: ${(await status.textContent())?.trim()}`);
  await snap("verifying");
  const done = toast("verified Triton kernel");
  await done.waitFor({ timeout: 300000 });
  log(`server: ${await message(done)}`);
  await waitStatus(/MyReLU done/, 30000);
  log(`status: ${(await status.textContent())?.trim()}`);
  await snap("verified");
  await palette("Notifications: Clear All Notifications");

  // the best candidate as a diff, then Accept
  await page.locator(".tab", { hasText: "mod.py" }).first().click();
  await gotoLine(12);
  await palette("TritonRL: Show the best verified kernel as a diff");
  await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 30000 });
  await page.locator(".tab", { hasText: "mod_triton.py" }).first().waitFor({ timeout: 10000 });
  const accept = toast("Write it to mod_triton.py").locator(".monaco-button", { hasText: "Accept" });
  await accept.waitFor({ timeout: 30000 });
  log(`diff: ${(await page.locator(".tab.active").first().textContent())?.trim()}`);
  await snap("diff-preview");
  await accept.click();
  const kernelFile = join(work, "ws", "mod_triton.py");
  for (let i = 0; i < 100 && !existsSync(kernelFile); i++) await page.waitForTimeout(200);
  await page.locator(".tab.active", { hasText: "mod_triton.py" }).waitFor({ timeout: 30000 });
  await page.waitForTimeout(1000);
  const written = readFileSync(kernelFile, "utf8");
  const expected = readFileSync(join(repo, "examples", "relu_candidate.py"), "utf8");
  if (written !== expected) fail(`mod_triton.py is not the verified candidate:\n${written}`);
  log("mod_triton.py written: the verified candidate, byte for byte");
  await snap("kernel-applied");

  // the feedback store recorded the acceptance; the feedback log command shows it
  const report = execFileSync("python3", ["-m", "training.feedback_report", "--db", join(work, "feedback.sqlite3")],
    { cwd: repo, encoding: "utf8" });
  if (!/1 suggestion\(s\) shown: 1 accepted/.test(report)) fail(`feedback store: ${report}`);
  log("feedback store: 1 suggestion shown, 1 accepted");
  await palette("Notifications: Clear All Notifications");
  await palette("TritonRL: Open the feedback log");
  await page.locator(".tab.active", { hasText: "TritonRL feedback log" }).waitFor({ timeout: 30000 });
  await page.frameLocator("iframe.webview.ready").frameLocator("iframe").getByText("1 accepted").first()
    .waitFor({ timeout: 30000 }).catch(() => log("(the rendered preview was not found; the tab is open)"));
  await snap("feedback-log");

  // a start-up failure: a Python that does not exist
  const settingsFile = join(work, "ws", ".vscode", "settings.json");
  const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
  settings["tritonrl.pythonPath"] = "/nonexistent/python3";
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  const restart = toast("server command changed").locator(".monaco-button", { hasText: "Restart" });
  await restart.waitFor({ timeout: 30000 });
  await restart.click();
  const err = toast("was not found");
  await err.waitFor({ timeout: 60000 });
  log(`start-up failure: ${await message(err)}`);
  if (/client is not running|couldn't create connection/.test((await page.locator(".notifications-toasts").textContent()) ?? "")) {
    fail("a cryptic client error was shown");
  }
  await waitStatus(/TritonRL: server failed/, 10000);
  await snap("startup-failure");
  await err.locator(".monaco-button", { hasText: "Open server log" }).click();
  await page.locator(".output-view, .panel", { hasText: "was not found" }).first().waitFor({ timeout: 15000 }).catch(() => {});
  await page.waitForTimeout(1000);
  await snap("server-log");
  log("E2E PASSED");
} catch (e) {
  log(`E2E FAILED: ${e instanceof Error ? e.message : String(e)}`);
  await snap("failure").catch(() => {});
  await browser.close();
  process.exit(1);
}
await browser.close();
