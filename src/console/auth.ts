/**
 * Who may use the operator console: whoever holds the token printed at start. The first visit
 * (`/console/?token=…`) trades it for an HttpOnly, SameSite=Strict session cookie and redirects to
 * a URL without it. Requests that change something must also come from the console's own origin
 * and carry the CSRF token (double submit: the `x-console-csrf` header equals the readable
 * `console_csrf` cookie). Bad tokens are counted per address: past a few a minute, answers are
 * 429 until the minute is over.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

const SESSION_COOKIE = "console_session";
const CSRF_COOKIE = "console_csrf";
const CSRF_HEADER = "x-console-csrf";

/** Bad tokens an address may try per window before it is refused outright. */
const MAX_FAILURES = 10;
const WINDOW_MS = 60_000;

/** The Cookie header as a map (a malformed pair is skipped). */
function cookies(req: FastifyRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    try {
      out.set(name, decodeURIComponent(raw));
    } catch {
      // not ours
    }
  }
  return out;
}

/** A browser asking for a page (not the page's own API calls). */
function wantsPage(req: FastifyRequest): boolean {
  const path = req.url.split("?")[0] ?? "";
  return req.method === "GET" && !path.includes("/api/") && (req.headers.accept ?? "").includes("text/html");
}

/** What an unauthenticated browser sees: how to sign in. Static text: nothing of the personas. */
const SIGN_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Persona console: sign in</title></head>
<body>
<h1>Sign in to the operator console</h1>
<p>This browser has no console session yet (or the console's secret changed).</p>
<ul>
<li><code>npm start</code> logs a line <code>operator console: http://…/console/ (sign in once with ?token=&lt;the secret in …/console-token&gt;)</code>:
add <code>?token=</code> and that file's content to this address once; on a terminal it prints the whole address.
After that, this browser and its bookmarks stay signed in, also after restarts.</li>
<li>With <code>HTTP_TOKEN</code> set, sign in with <code>?token=&lt;HTTP_TOKEN&gt;</code>.</li>
<li>The sandbox prints <code>sandbox: operator console on http://…/console/?token=…</code>: open that address (each run has its own).</li>
</ul>
</body></html>
`;

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class ConsoleAuth {
  /** The session cookie's value: derived from the token, so the token itself never sits in a cookie. */
  private readonly session: string;
  private readonly failures = new Map<string, { n: number; since: number }>();

  constructor(
    private readonly token: string,
    private readonly now: () => number = Date.now,
  ) {
    this.session = createHash("sha256").update(`console-session\u0000${token}`).digest("base64url");
  }

  /** Too many bad tokens from this address lately. */
  private blocked(ip: string): boolean {
    const f = this.failures.get(ip);
    if (!f) return false;
    if (this.now() - f.since > WINDOW_MS) {
      this.failures.delete(ip);
      return false;
    }
    return f.n >= MAX_FAILURES;
  }

  private failed(ip: string): void {
    const f = this.failures.get(ip);
    if (!f || this.now() - f.since > WINDOW_MS) this.failures.set(ip, { n: 1, since: this.now() });
    else f.n++;
    if (this.failures.size > 10_000) this.failures.clear(); // bounded memory, whatever is sent
  }

  /**
   * Check a console request. Answers it (and returns false) when it may not go on: 429 after
   * too many bad tokens, 302 to drop a good token from the URL, 401 without a valid session,
   * 403 for a state change from elsewhere or without the CSRF token.
   */
  async check(req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const ip = req.ip;
    if (this.blocked(ip)) {
      await reply.code(429).header("retry-after", "60").send({ error: "too many bad tokens; wait a minute" });
      return false;
    }
    const jar = cookies(req);
    const given = new URL(req.url, "http://console.invalid").searchParams.get("token");
    if (given !== null) {
      if (!same(given, this.token)) {
        this.failed(ip);
        await reply.code(401).send({ error: "wrong console token" });
        return false;
      }
      // A good token: a session cookie, a CSRF cookie, and the same page without the token.
      const url = new URL(req.url, "http://console.invalid");
      url.searchParams.delete("token");
      const csrf = jar.get(CSRF_COOKIE) ?? randomBytes(18).toString("base64url");
      await reply
        .code(302)
        .header("set-cookie", [
          `${SESSION_COOKIE}=${this.session}; Path=/console; HttpOnly; SameSite=Strict`,
          `${CSRF_COOKIE}=${csrf}; Path=/console; SameSite=Strict`,
        ])
        .header("location", `${url.pathname}${url.search}`)
        .send();
      return false;
    }
    const session = jar.get(SESSION_COOKIE);
    if (session === undefined || !same(session, this.session)) {
      if (session !== undefined) this.failed(ip);
      // A person with a browser (a bookmark, a new tab) gets a page that says how to sign in.
      if (wantsPage(req)) await reply.code(401).type("text/html; charset=utf-8").send(SIGN_IN_PAGE);
      else
        await reply
          .code(401)
          .send({ error: "open the console with the URL printed at start (it carries the token)" });
      return false;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      const origin = req.headers.origin;
      const host = req.headers.host;
      if (origin === undefined || host === undefined || origin !== `http://${host}`) {
        await reply.code(403).send({ error: "a change must come from the console's own page" });
        return false;
      }
      const header = req.headers[CSRF_HEADER];
      const cookie = jar.get(CSRF_COOKIE);
      if (typeof header !== "string" || cookie === undefined || !same(header, cookie)) {
        await reply.code(403).send({ error: "missing or wrong CSRF token" });
        return false;
      }
    }
    return true;
  }
}
