/**
 * The console's browser tests' rig: one Chromium per file, and per test the harness's persona on
 * the emulator, its console on a loopback port and a page logged in with the token. `consoleRig`
 * registers the hooks that launch and close them; `rig.h` is the harness of the test in progress.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { OperatorConsole } from "../../src/console/console";
import { startHttpServer, type HttpServer } from "../../src/http/server";
import { resetMetrics } from "../../src/metrics/metrics";
import { captureLogger } from "../support/log-capture";
import { Harness, type HarnessOptions } from "../support/harness";
import { launchBrowser } from "./browser";

/** The page's localStorage, as the browser has it (no DOM types in the tests' build). */
interface WithStorage {
  readonly localStorage: { getItem(key: string): string | null };
}

export interface OpenOptions {
  /** The persona file (default the harness's). */
  readonly persona?: string;
  /** Strings the console must never send. */
  readonly secrets?: readonly string[];
  /** Where the media editor writes curated files. */
  readonly agentsDir?: string;
  /** How long the persona's Telegram requests may take (the harness's option). */
  readonly requestTimeoutMs?: number;
  /** Memory by meaning (the harness's option): embeddings from the Gemini fake. */
  readonly embeddings?: HarnessOptions["embeddings"];
}

export interface OpenConsole {
  readonly h: Harness;
  readonly page: Page;
  /** The listener's URL. */
  readonly base: string;
  readonly con: OperatorConsole;
}

export function consoleRig(token: string): {
  readonly h: Harness;
  open(o?: OpenOptions): Promise<OpenConsole>;
} {
  let browser: Browser | undefined;
  let h: Harness | undefined;
  let http: HttpServer | undefined;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await context?.close();
    await http?.close();
    await h?.close();
    context = http = h = undefined;
    resetMetrics();
  });
  return {
    get h(): Harness {
      if (h === undefined) throw new Error("open() the console first");
      return h;
    },
    async open(o: OpenOptions = {}): Promise<OpenConsole> {
      const started = await Harness.start({
        ...(o.persona !== undefined ? { persona: o.persona } : {}),
        ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
        ...(o.embeddings !== undefined ? { embeddings: o.embeddings } : {}),
      });
      h = started;
      const con = new OperatorConsole({
        token,
        now: () => started.clock.now(),
        pollMs: 100,
        ...(o.secrets ? { secrets: o.secrets } : {}),
      });
      con.add(started.persona, started.runtime, started.db, o.agentsDir ? { agentsDir: o.agentsDir } : {});
      http = await startHttpServer({
        port: 0,
        host: "127.0.0.1",
        logger: captureLogger().logger,
        plugins: [con.plugin],
      });
      context = await browser!.newContext();
      const page = await context.newPage();
      await page.goto(con.url(http.url));
      // Signed in: the page traded the token for a session it keeps.
      await page.waitForFunction(() =>
        (globalThis as unknown as WithStorage).localStorage.getItem("console-session"),
      );
      return { h: started, page, base: http.url, con };
    },
  };
}

/** The console session the page holds (what it sends as `x-console-session`). */
export async function pageSession(page: Page): Promise<string> {
  return (
    (await page.evaluate(() =>
      (globalThis as unknown as WithStorage).localStorage.getItem("console-session"),
    )) ?? ""
  );
}
