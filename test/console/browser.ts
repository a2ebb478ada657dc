/**
 * A real browser for the console tests: the system's Chromium driven by playwright-core. No
 * browser installed: a clear error naming the package to install (.ci/run installs it).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

const CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];

export async function launchBrowser(): Promise<Browser> {
  const executablePath = CANDIDATES.find((p): p is string => p !== undefined && existsSync(p));
  if (!executablePath)
    throw new Error(
      "the console's browser tests need Chromium: install the system package (apt-get install -y chromium) or set CHROMIUM_PATH",
    );
  // launch() starts every browser on a fresh temporary profile (its own user-data-dir).
  return chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** Run `fn`; when it throws, keep a screenshot of the page in test-artifacts/ first. */
export async function withScreenshot<T>(page: Page, name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const dir = join(process.cwd(), "test-artifacts");
    mkdirSync(dir, { recursive: true });
    await page
      .screenshot({ path: join(dir, `${name.replace(/[^\w.-]+/g, "-")}.png`), fullPage: true })
      .catch(() => undefined);
    throw e;
  }
}
