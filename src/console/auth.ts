/**
 * Who may use the operator console: whoever holds the token printed at start — and, after the
 * sign-in, only the page that traded it. No cookie is involved: cookies are shared by every
 * port of 127.0.0.1, so another local program that the browser visits would receive them and
 * could replay them. Instead:
 *
 * - Signing in: the page (opened with `?token=…`) posts the token to `api/session` and gets a
 *   **session token**: an expiry and a random nonce, signed (HMAC-SHA256) with a key derived
 *   from the console token. The page keeps it in its origin's `localStorage` — which, unlike a
 *   cookie, belongs to scheme, host *and port*: no other local server's page can read it — and
 *   sends it as the `x-console-session` header on every API call (an `<img>`, a link or an
 *   EventSource cannot carry a header, so the page fetches those too).
 * - A session lasts `SESSION_TTL_MS` from its last renewal: an answer to a session older than
 *   `RENEW_AFTER_MS` carries a fresh one in the same header. Signed, not stored: it survives a
 *   restart on the same secret, and deleting the secret (secret.ts) ends every session.
 * - The static files (the page's HTML, scripts, styles) hold no data and are served to anyone
 *   who passes the listener's Host check; every `api/` answer needs a session.
 * - A POST must come from the console's own origin (`Origin` equal to `http://<Host>`).
 * - Throttling: bad tokens and forged sessions are counted per address; past `MAX_FAILURES` in a
 *   minute that address's bad tokens and forgeries get 429 until the minute is over. A valid
 *   session and the right token are checked first and never throttled: every local program shares
 *   127.0.0.1, so another one hammering bad tokens must not lock the operator out (it delays
 *   nobody but itself). The throttle is not what keeps the token safe — its 192 random bits are.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

/** The header that carries the session both ways (a renewed one comes back in it). */
const SESSION_HEADER = "x-console-session";

/** How long a session lasts without being used. */
export const SESSION_TTL_MS = 7 * 24 * 3_600_000;
/** A session older than this is renewed in the next answer. */
const RENEW_AFTER_MS = 24 * 3_600_000;

/** Bad tokens an address may try per window before it is refused outright. */
const MAX_FAILURES = 10;
const WINDOW_MS = 60_000;

/** The one route that takes the console token itself (all others take a session). */
const SESSION_ROUTE = "/console/api/session";

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

type Verdict =
  | { readonly kind: "valid"; readonly expires: number }
  | { readonly kind: "expired" }
  | { readonly kind: "forged" };

export class ConsoleAuth {
  /** The key sessions are signed with: derived from the token, so the token itself never travels again. */
  private readonly key: Buffer;
  private readonly failures = new Map<string, { n: number; since: number }>();

  constructor(
    private readonly token: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = createHash("sha256").update(`console-session-key\u0000${token}`).digest();
  }

  private mac(payload: string): string {
    return createHmac("sha256", this.key).update(payload).digest("base64url");
  }

  /** A new session token: `<expiry, base 36>.<nonce>.<signature>`. */
  issue(): { readonly session: string; readonly expires: number } {
    const expires = this.now() + SESSION_TTL_MS;
    const payload = `${expires.toString(36)}.${randomBytes(12).toString("base64url")}`;
    return { session: `${payload}.${this.mac(payload)}`, expires };
  }

  /** What a session token is worth now. */
  verify(session: string): Verdict {
    const parts = session.split(".");
    if (parts.length !== 3) return { kind: "forged" };
    const payload = `${parts[0]}.${parts[1]}`;
    if (!same(parts[2]!, this.mac(payload))) return { kind: "forged" };
    const expires = parseInt(parts[0]!, 36);
    if (!Number.isFinite(expires) || expires <= this.now()) return { kind: "expired" };
    return { kind: "valid", expires };
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

  private async tooMany(reply: FastifyReply): Promise<false> {
    await reply.code(429).header("retry-after", "60").send({ error: "too many bad tokens; wait a minute" });
    return false;
  }

  /** `POST api/session` with `{ token }`: a session for the console token, else 401 (counted). */
  async signIn(req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const given = (req.body as { token?: unknown } | null | undefined)?.token;
    if (typeof given !== "string" || !same(given, this.token)) {
      // Only wrong tokens are throttled: the right one signs in whatever others sent.
      if (this.blocked(req.ip)) return this.tooMany(reply);
      this.failed(req.ip);
      return reply.code(401).send({ error: "wrong console token", signIn: true });
    }
    return this.issue();
  }

  /**
   * Check a console request. Answers it (and returns false) when it may not go on: 401 without a
   * valid session (or with a wrong token at sign-in), 429 after too many bad tokens, 403 for a
   * POST from another origin. The sign-in route (`POST api/session`) passes to `signIn`.
   */
  async check(req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const path = req.url.split("?")[0] ?? "";
    const isApi = path.startsWith("/console/api/");
    // The page's own files: nothing of the personas in them.
    if (!isApi) return true;
    if (req.method !== "GET" && req.method !== "HEAD") {
      const origin = req.headers.origin;
      const host = req.headers.host;
      if (origin === undefined || host === undefined || origin !== `http://${host}`) {
        await reply.code(403).send({ error: "a change must come from the console's own page" });
        return false;
      }
    }
    const ip = req.ip;
    // The sign-in route checks the token itself (signIn), once its body is read.
    if (path === SESSION_ROUTE) return true;
    const header = req.headers[SESSION_HEADER];
    const session = typeof header === "string" ? header : undefined;
    // A valid session first: the throttle never stands in its way.
    const verdict = session !== undefined ? this.verify(session) : undefined;
    if (verdict?.kind === "valid") {
      if (verdict.expires - this.now() < SESSION_TTL_MS - RENEW_AFTER_MS)
        void reply.header(SESSION_HEADER, this.issue().session);
      return true;
    }
    if (verdict?.kind === "forged") {
      if (this.blocked(ip)) return this.tooMany(reply);
      this.failed(ip);
    }
    await reply.code(401).send({
      error:
        verdict?.kind === "expired"
          ? "the console session expired: sign in again with the URL printed at start"
          : "sign in: open the console with the URL printed at start (it carries the token)",
      signIn: true,
    });
    return false;
  }
}
