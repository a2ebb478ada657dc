/**
 * The console's Pause and Resume while another program holds the database's write lock (an
 * sqlite3 shell in a transaction, a backup tool): the action is tried again for a few seconds —
 * without blocking the process — and goes through once the lock is released; while it stays
 * held, the answer is 503 saying that the database is busy (not a bare 500 after a second).
 */
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { OperatorConsole } from "../../src/console/console";
import { startHttpServer, type HttpServer } from "../../src/http/server";
import { resetMetrics } from "../../src/metrics/metrics";
import { Harness } from "../support/harness";
import { captureLogger } from "../support/log-capture";

const TOKEN = "console-busy-token-0123456789";
let h: Harness | undefined;
let http: HttpServer | undefined;
let other: Database.Database | undefined;
afterEach(async () => {
  if (other?.inTransaction) other.exec("ROLLBACK");
  other?.close();
  await http?.close();
  await h?.close();
  other = http = h = undefined;
  resetMetrics();
});

/** The persona with its console on a loopback port, signed in; `act` posts an action. */
async function consoleOn(): Promise<{ act: (body: object) => Promise<Response> }> {
  h = await Harness.start();
  const hh = h;
  const con = new OperatorConsole({ token: TOKEN, now: () => hh.clock.now(), pollMs: 100 });
  con.add(hh.persona, hh.runtime, hh.db);
  http = await startHttpServer({
    port: 0,
    host: "127.0.0.1",
    logger: captureLogger().logger,
    plugins: [con.plugin],
  });
  const base = http.url;
  const signIn = await fetch(`${base}/console/api/session`, {
    method: "POST",
    headers: { origin: base, "content-type": "application/json" },
    body: JSON.stringify({ token: TOKEN }),
  });
  const session = ((await signIn.json()) as { session: string }).session;
  return {
    act: (body) =>
      fetch(`${base}/console/api/action`, {
        method: "POST",
        headers: { origin: base, "content-type": "application/json", "x-console-session": session },
        body: JSON.stringify({ persona: "Mira", ...body }),
      }),
  };
}

/** Another program takes the database's write lock and keeps it. */
function holdWriteLock(path: string): Database.Database {
  const db = new Database(path);
  db.exec("BEGIN IMMEDIATE");
  db.prepare("UPDATE update_state SET seq = seq WHERE 0").run();
  return db;
}

describe("the console on a locked database", () => {
  it("Pause answers 503 saying the database is busy while another program keeps the lock; nothing changed", async () => {
    const c = await consoleOn();
    other = holdWriteLock(h!.dbPath);
    const t0 = performance.now();
    const res = await c.act({ action: "pause" });
    const ms = performance.now() - t0;
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    const body = (await res.json()) as { error: string };
    expect(body.error).toMatch(
      /^the database \S+state\.db is busy: another program holds its write lock .*Tried for 3 s; nothing was changed\. Try again in a moment/,
    );
    expect(ms).toBeGreaterThan(2500); // it tried again for about three seconds…
    expect(h!.runtime.settings.get("*").paused).toBe(false);
  });

  it("Pause and Resume go through once the other program lets go, within the retries", async () => {
    const c = await consoleOn();
    other = holdWriteLock(h!.dbPath);
    const paused = c.act({ action: "pause" });
    // …and the process is not blocked meanwhile: timers run, and the lock is released after 600 ms.
    await new Promise((r) => setTimeout(r, 600));
    other.exec("COMMIT");
    const res = await paused;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { answer: string }).answer).toMatch(/paus/i);
    expect(h!.runtime.settings.get("*").paused).toBe(true);

    other.exec("BEGIN IMMEDIATE");
    other.prepare("UPDATE update_state SET seq = seq WHERE 0").run();
    const resumed = c.act({ action: "resume" });
    await new Promise((r) => setTimeout(r, 300));
    other.exec("COMMIT");
    expect((await resumed).status).toBe(200);
    expect(h!.runtime.settings.get("*").paused).toBe(false);
  });
});
