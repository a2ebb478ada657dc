/**
 * A loopback stand-in for the Gemini API: a real `node:http` server on 127.0.0.1 that speaks the
 * same wire format as `generativelanguage.googleapis.com` for `POST /v1beta/models/{model}:generateContent`
 * (and `:batchEmbedContents` / `:embedContent`, with the deterministic vectors of fake-embeddings.ts)
 * (shapes as the SDK sends and reads them). Tests point the real `@google/genai` SDK at
 * `baseUrl`, so the code under test runs unchanged — no `vi.mock`.
 *
 * Replies are scripted (a FIFO queue), else computed by `respondWith`, else `{ json: { tasks: [] } }`.
 */
import { fakeEmbedding } from "./fake-embeddings";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tonePcm, toneWav } from "./tone";

/** One scripted answer. */
export type FakeReply =
  /**
   * A successful answer whose single text part is `JSON.stringify(json)`; `usage` replaces the
   * computed usageMetadata (e.g. to script thinking tokens or a known count).
   */
  | { readonly json: unknown; readonly usage?: FakeUsage }
  /** A successful answer with this raw text part (e.g. malformed JSON); `finishReason` "MAX_TOKENS" for an answer cut off at maxOutputTokens. */
  | { readonly text: string; readonly finishReason?: "STOP" | "MAX_TOKENS" }
  /** INVALID_ARGUMENT with Google's message (e.g. a bad API key, an unreadable inline file). */
  | { readonly status: 400; readonly message: string }
  /**
   * RESOURCE_EXHAUSTED, with a google.rpc.RetryInfo detail when `retryDelaySeconds` is given and a
   * `Retry-After` header when `retryAfter` is (delta-seconds or an HTTP date, as written).
   */
  | { readonly status: 429; readonly retryDelaySeconds?: number; readonly retryAfter?: string }
  /** Google's INTERNAL / UNAVAILABLE / DEADLINE_EXCEEDED envelope; 502 is a proxy's HTML page ("Bad Gateway"), as Google's front end sends it. */
  | { readonly status: 500 | 502 | 503 | 504; readonly retryAfter?: string }
  /** The connection is reset before any answer (a crashed front end, a dropped socket). */
  | { readonly reset: true }
  /** HTTP 200 with a body that is not JSON (cut off mid-way, as a broken proxy does). */
  | { readonly garbled: true }
  /**
   * HTTP 200 whose body never ends (a broken proxy, a runaway stream): chunked, no length, the
   * start of an answer and then text, 64 KB a write, as fast as the client reads, until it hangs
   * up. `endlessSent` counts the bytes that went out.
   */
  | { readonly endless: true }
  /** A candidate with finishReason "SAFETY" and no content. */
  | { readonly safety: true }
  /** `promptFeedback.blockReason = "SAFETY"` and no candidates. */
  | { readonly blockedPrompt: true }
  /** Answer `then` after a real `setTimeout` of `delayMs`. */
  | { readonly delayMs: number; readonly then: FakeReply }
  /** Answer `then` once `after` settles — a latch the test releases when it is ready. */
  | { readonly after: Promise<unknown>; readonly then: FakeReply }
  /** A grounded answer (Google Search / URL context): text plus the metadata real answers carry. */
  | { readonly grounded: FakeGrounded }
  /**
   * Speech (a request with `responseModalities: ["AUDIO"]`): real audio, a 440 Hz tone of
   * `seconds` (default: the text read at 15 characters a second, at least 1 s) as raw 16-bit PCM
   * at 24 kHz (`audio/L16;codec=pcm;rate=24000`, as the docs say) or, with `wav`, a WAV file (as
   * newer models send); `noAudio` answers a candidate without audio.
   */
  | { readonly speech: { readonly seconds?: number; readonly wav?: boolean; readonly noAudio?: boolean } };

/** A speech request: it asks for audio (`generationConfig.responseModalities`). */
export function isSpeechRequest(body: GenerateBody): boolean {
  const m = body.generationConfig?.["responseModalities"];
  return Array.isArray(m) && m.includes("AUDIO");
}

/**
 * What a grounded answer says. `sources` become groundingChunks (and one groundingSupport each),
 * `queries` webSearchQueries, `urls` urlContextMetadata.urlMetadata with Gemini's statuses;
 * `noMetadata` leaves both metadata objects out, as real answers sometimes do although a search
 * ran. `toolTokens`: toolUsePromptTokenCount (what the fetched pages and results cost).
 */
export interface FakeGrounded {
  readonly text: string;
  readonly sources?: readonly { readonly uri: string; readonly title?: string }[];
  readonly queries?: readonly string[];
  readonly urls?: readonly {
    readonly url: string;
    readonly status: "SUCCESS" | "ERROR" | "PAYWALL" | "UNSAFE" | "UNSPECIFIED";
  }[];
  readonly noMetadata?: boolean;
  readonly toolTokens?: number;
}

/** A look-up request: it asks for Google Search or URL context (`tools`). */
export function isLookUpRequest(body: GenerateBody): boolean {
  const tools = body.tools;
  return (
    Array.isArray(tools) &&
    tools.some((t: Record<string, unknown>) => "googleSearch" in t || "urlContext" in t)
  );
}

/** usageMetadata fields as Gemini sends them. */
export interface FakeUsage {
  readonly promptTokenCount: number;
  readonly cachedContentTokenCount?: number;
  readonly candidatesTokenCount: number;
  readonly thoughtsTokenCount?: number;
}

/** A text part as it appears in a request. */
export interface GenerateBodyPart {
  readonly text?: string;
  readonly [key: string]: unknown;
}

/** One `Content` turn as it appears in a request. */
export interface GenerateBodyContent {
  readonly role?: string;
  readonly parts?: readonly GenerateBodyPart[];
}

/** The parsed JSON body of a generateContent request, typed loosely (it is whatever the SDK sent). */
export interface GenerateBody {
  readonly contents?: readonly GenerateBodyContent[];
  readonly systemInstruction?: GenerateBodyContent;
  readonly generationConfig?: {
    readonly responseMimeType?: string;
    readonly responseSchema?: Readonly<Record<string, unknown>>;
    readonly responseJsonSchema?: Readonly<Record<string, unknown>>;
    readonly temperature?: number;
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

/** The text of the last `user` turn of a request body (what the persona is asked to answer). */
export function lastUserText(body: GenerateBody): string {
  const last = [...(body.contents ?? [])].reverse().find((c) => c.role === "user");
  return (last?.parts ?? []).map((p) => p.text ?? "").join("\n");
}

/** A planning request: its system instruction asks for a plan (`{"tasks":[...]}`). */
export function isPlanRequest(body: GenerateBody): boolean {
  return (body.systemInstruction?.parts ?? []).some((p) => (p.text ?? "").includes('{"tasks":[...]}'));
}

/**
 * The header mark of an addressed message (src/planning/address-marks.ts): how it reached the
 * persona — `to you` (a private chat), `replies to you`, `@mentions you`, `calls you by name…`, `names you…`, `may be
 * for you` — and `, but speaks to …` when it speaks to someone else too.
 */
export const ADDRESSED_MARK =
  / · (?:to you|replies to you|@mentions you|calls you by name[^⟧,]*|names you[^⟧,]*|may be for you)(?:, but speaks to [^⟧]*)?⟧$/;

/**
 * The planner's prompt puts the chat in one user turn (src/planning/prompt.ts): message parts
 * start `⟦#id …⟧`, the addressed ones carry a header mark ({@link ADDRESSED_MARK}). These return the message
 * parts the persona is shown as context (`history`: ⟦earlier⟧ and ⟦history⟧, addressed ones left
 * out) and the addressed ones (`now`), each in message order, so a test can tell context from request.
 */
export function promptSections(body: GenerateBody): { readonly history: string[]; readonly now: string[] } {
  const parts = [...(body.contents ?? [])].reverse().find((c) => c.role === "user")?.parts ?? [];
  const history: string[] = [];
  const now: string[] = [];
  for (const p of parts) {
    const text = p.text ?? "";
    const header = /^⟦(#\d+ |reaction )[^⟧]*⟧/.exec(text)?.[0];
    if (header === undefined) continue;
    (ADDRESSED_MARK.test(header) ? now : history).push(text);
  }
  return { history, now };
}

/**
 * The chat messages of the last user turn, in their order, without the
 * request's other parts (⟦now⟧, ⟦abilities⟧, …): what a scripted responder reads for its cues,
 * so a word in the product's own guidance ("say you don't know") is never taken for a message's.
 */
export function messageText(body: GenerateBody): string {
  const parts = [...(body.contents ?? [])].reverse().find((c) => c.role === "user")?.parts ?? [];
  return parts
    .map((p) => p.text ?? "")
    .filter((t) => /^⟦(#\d+ |reaction )[^⟧]*⟧/.test(t))
    .join("\n");
}

/** One request the fake received on the generateContent route. */
export interface RecordedRequest {
  readonly model: string;
  readonly body: GenerateBody;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):generateContent$/;
/** Embeddings: the SDK's `models.embedContent` posts a batch; a single `:embedContent` is answered too. */
const EMBED_ROUTE = /^\/v1beta\/models\/([^/:]+):(batchEmbedContents|embedContent)$/;
/** Gemini's embedding size when a request names no outputDimensionality (gemini-embedding-001's). */
const FULL_EMBEDDING = 3072;

/** One embedding request (kept apart from `requests`, which are generateContent's). */
export interface EmbedRecord {
  readonly model: string;
  readonly texts: readonly string[];
  readonly dimensions: number | undefined;
  readonly taskType: string | undefined;
}
const DEFAULT_REPLY: FakeReply = { json: { tasks: [] } };

/** The loopback Gemini server. Create with {@link GeminiFake.start}; always {@link GeminiFake.close}. */
export class GeminiFake {
  /** `http://127.0.0.1:<port>` — pass as `httpOptions.baseUrl`. */
  readonly baseUrl: string;
  /** Every generateContent request, in arrival order (recorded before any scripted delay). */
  readonly requests: RecordedRequest[] = [];
  /** Every embedding request (deterministic vectors: fake-embeddings.ts). */
  readonly embedRequests: EmbedRecord[] = [];
  /** Embedding requests still to fail, each with this HTTP status (a failing or absent embedding model). */
  embedFailures: number[] = [];
  /** A text this refuses (400 INVALID_ARGUMENT for any request that holds it: too long, or unembeddable). */
  embedRefuses: ((text: string) => boolean) | undefined;

  private readonly queue: FakeReply[] = [];
  /** Replies to speech requests (they never take a plan's scripted reply); empty: a tone. */
  private readonly speechQueue: FakeReply[] = [];
  /** The prompt texts of the latest requests per model (the implicit cache's memory). */
  private readonly prompts = new Map<string, string[]>();
  private fallback: ((body: GenerateBody, index: number, model: string) => FakeReply) | undefined;
  /** Bytes written by `endless` answers so far (all of them). */
  endlessSent = 0;
  /** Pending delayed answers, cleared on close so no timer outlives the server. */
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(private readonly server: Server) {
    const { port } = server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    server.on("request", (req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        // A throwing respondWith() callback must not become an unhandled rejection in the test run.
        if (!res.headersSent)
          sendJson(res, 500, googleError(500, "INTERNAL", `Gemini fake failed: ${String(err)}`));
      });
    });
  }

  /** Listen on an ephemeral loopback port. */
  static async start(): Promise<GeminiFake> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    return new GeminiFake(server);
  }

  /** Queue replies; each request consumes the next one. */
  script(...replies: FakeReply[]): void {
    this.queue.push(...replies);
  }

  /** Queue replies to speech requests (`{ speech: … }`, or an error); unscripted ones get a tone. */
  scriptSpeech(...replies: FakeReply[]): void {
    this.speechQueue.push(...replies);
  }

  /**
   * Compute a reply when the queue is empty. `index` is the 0-based index of the request overall;
   * `model` the model in the URL (e.g. the cheap addressing model vs the planner's).
   */
  respondWith(fn: (body: GenerateBody, index: number, model: string) => FakeReply): void {
    this.fallback = fn;
  }

  /** Stop listening and drop open (keep-alive or still-waiting) connections so this never hangs. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Node's fetch (undici) keeps sockets alive; server.close() alone would wait for them.
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const embed = req.method === "POST" ? EMBED_ROUTE.exec(path) : null;
    if (embed) return this.embed(res, decodeURIComponent(embed[1]!), embed[2] === "batchEmbedContents", raw);
    const match = req.method === "POST" ? ROUTE.exec(path) : null;
    const model = match?.[1];
    if (model === undefined) {
      sendJson(
        res,
        404,
        googleError(404, "NOT_FOUND", `Method ${req.method ?? "?"} ${path} not found in the Gemini fake.`),
      );
      return;
    }
    const body = parseBody(raw);
    if (body === undefined) {
      sendJson(res, 400, googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received."));
      return;
    }
    const index = this.requests.length;
    this.requests.push({ model: decodeURIComponent(model), body, headers: flattenHeaders(req) });
    const reply = isSpeechRequest(body)
      ? (this.speechQueue.shift() ?? { speech: {} })
      : (this.queue.shift() ?? this.fallback?.(body, index, decodeURIComponent(model)) ?? DEFAULT_REPLY);
    const cachedTokens = this.implicitCache(decodeURIComponent(model), promptText(body));
    this.answer(res, reply, {
      model: decodeURIComponent(model),
      promptChars: raw.length,
      index,
      cachedTokens,
    });
  }

  /** `batchEmbedContents` ({requests: [{content, outputDimensionality, taskType}]}) or `embedContent`. */
  private embed(res: ServerResponse, model: string, batch: boolean, raw: string): void {
    const status = this.embedFailures.shift();
    if (status !== undefined) {
      sendJson(
        res,
        status,
        googleError(status, status === 404 ? "NOT_FOUND" : "UNAVAILABLE", `embedding failed (${status})`),
      );
      return;
    }
    type One = {
      content?: { parts?: { text?: string }[] };
      outputDimensionality?: number;
      taskType?: string;
    };
    let body: { requests?: One[] } & One;
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      sendJson(res, 400, googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received."));
      return;
    }
    const items = batch ? (body.requests ?? []) : [body];
    const vectors = items.map((r) => {
      const text = (r.content?.parts ?? []).map((p) => p.text ?? "").join(" ");
      return { text, values: fakeEmbedding(text, r.outputDimensionality ?? FULL_EMBEDDING) };
    });
    if (this.embedRefuses && vectors.some((v) => this.embedRefuses!(v.text))) {
      this.embedRequests.push({
        model,
        texts: vectors.map((v) => v.text),
        dimensions: undefined,
        taskType: "refused",
      });
      sendJson(res, 400, googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument."));
      return;
    }
    this.embedRequests.push({
      model,
      texts: vectors.map((v) => v.text),
      dimensions: items[0]?.outputDimensionality,
      taskType: items[0]?.taskType,
    });
    sendJson(
      res,
      200,
      batch
        ? { embeddings: vectors.map((v) => ({ values: v.values })) }
        : { embedding: { values: vectors[0]!.values } },
    );
  }

  /**
   * Gemini's implicit caching, roughly: a request whose beginning (system instruction, then the
   * turns) repeats an earlier request's to the same model by at least {@link IMPLICIT_CACHE_MIN_TOKENS}
   * is billed that shared beginning as cached tokens (`cachedContentTokenCount`). Tokens are
   * counted as 4 characters, like the rest of the fake.
   */
  private implicitCache(model: string, text: string): number {
    const seen = this.prompts.get(model) ?? [];
    let best = 0;
    for (const earlier of seen) {
      const n = Math.min(earlier.length, text.length);
      let k = 0;
      while (k < n && earlier.charCodeAt(k) === text.charCodeAt(k)) k++;
      best = Math.max(best, k);
    }
    seen.push(text);
    if (seen.length > 16) seen.shift();
    this.prompts.set(model, seen);
    const tokens = Math.floor(best / 4);
    return tokens >= IMPLICIT_CACHE_MIN_TOKENS ? tokens : 0;
  }

  private answer(res: ServerResponse, reply: FakeReply, ctx: AnswerContext): void {
    if ("after" in reply) {
      void reply.after.finally(() => {
        if (!res.destroyed && !res.writableEnded) this.answer(res, reply.then, ctx);
      });
      return;
    }
    if ("delayMs" in reply) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        // The client may have given up (timeout) and closed the socket meanwhile.
        if (!res.destroyed && !res.writableEnded) this.answer(res, reply.then, ctx);
      }, reply.delayMs);
      this.timers.add(timer);
      return;
    }
    if ("reset" in reply) {
      res.socket?.destroy();
      return;
    }
    if ("endless" in reply) {
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      const chunk = Buffer.alloc(64 * 1024, "a");
      res.write('{"candidates": [{"content": {"role": "model", "parts": [{"text": "');
      // Write while the socket takes it; stop when the client hangs up (or the fake closes).
      const pump = () => {
        while (!res.destroyed && !res.writableEnded) {
          this.endlessSent += chunk.length;
          if (!res.write(chunk)) {
            res.once("drain", pump);
            return;
          }
        }
      };
      res.on("close", () => res.removeAllListeners("drain"));
      pump();
      return;
    }
    if ("garbled" in reply) {
      const text = '{"candidates": [{"content": {"role": "model", "parts": [{"text": "{\\"tas';
      res.writeHead(200, {
        "content-type": "application/json; charset=UTF-8",
        "content-length": Buffer.byteLength(text),
      });
      res.end(text);
      return;
    }
    if ("status" in reply) {
      const headers: Record<string, string> =
        "retryAfter" in reply && reply.retryAfter !== undefined ? { "retry-after": reply.retryAfter } : {};
      if (reply.status === 502) {
        const page =
          "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The server encountered a temporary error.</p></body></html>";
        res.writeHead(502, {
          "content-type": "text/html; charset=UTF-8",
          "content-length": Buffer.byteLength(page),
          ...headers,
        });
        res.end(page);
        return;
      }
      sendJson(res, reply.status, errorBodyFor(reply), headers);
      return;
    }
    const promptTokenCount = Math.ceil(ctx.promptChars / 4);
    const base = { modelVersion: ctx.model, responseId: `fake-${ctx.index}` };
    if ("safety" in reply) {
      sendJson(res, 200, {
        candidates: [{ finishReason: "SAFETY", index: 0, safetyRatings: [blockedRating()] }],
        usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount },
        ...base,
      });
      return;
    }
    if ("blockedPrompt" in reply) {
      sendJson(res, 200, {
        promptFeedback: { blockReason: "SAFETY", safetyRatings: [blockedRating()] },
        usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount },
        ...base,
      });
      return;
    }
    if ("grounded" in reply) {
      sendJson(res, 200, { ...groundedAnswer(reply.grounded, promptTokenCount), ...base });
      return;
    }
    if ("speech" in reply) {
      const said = lastUserText(this.requests[ctx.index]!.body);
      const seconds = reply.speech.seconds ?? Math.max(1, Math.round(said.length / 15));
      const audio = reply.speech.wav ? toneWav(seconds) : tonePcm(seconds);
      const part = {
        inlineData: {
          mimeType: reply.speech.wav ? "audio/wav" : "audio/L16;codec=pcm;rate=24000",
          data: audio.toString("base64"),
        },
      };
      const tokens = Math.ceil(said.length / 4);
      sendJson(res, 200, {
        candidates: [
          {
            content: { role: "model", parts: reply.speech.noAudio ? [{ text: "" }] : [part] },
            finishReason: "STOP",
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount: tokens,
          candidatesTokenCount: seconds * 25,
          totalTokenCount: tokens + seconds * 25,
        },
        ...base,
      });
      return;
    }
    const text = "json" in reply ? JSON.stringify(reply.json) : reply.text;
    const finishReason = "text" in reply ? (reply.finishReason ?? "STOP") : "STOP";
    const candidatesTokenCount = Math.ceil(text.length / 4);
    const scripted = "json" in reply ? reply.usage : undefined;
    const cached =
      ctx.cachedTokens > 0 ? { cachedContentTokenCount: Math.min(ctx.cachedTokens, promptTokenCount) } : {};
    const usageMetadata = scripted
      ? {
          ...scripted,
          totalTokenCount:
            scripted.promptTokenCount + scripted.candidatesTokenCount + (scripted.thoughtsTokenCount ?? 0),
        }
      : {
          promptTokenCount,
          ...cached,
          candidatesTokenCount,
          totalTokenCount: promptTokenCount + candidatesTokenCount,
        };
    sendJson(res, 200, {
      candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason, index: 0 }],
      usageMetadata,
      ...base,
    });
  }
}

/** The candidate and usage of a grounded answer, shaped as Gemini sends them. */
function groundedAnswer(g: FakeGrounded, promptTokenCount: number): Record<string, unknown> {
  const sources = g.sources ?? [];
  const groundingMetadata = {
    webSearchQueries: [...(g.queries ?? [])],
    groundingChunks: sources.map((s) => ({ web: { uri: s.uri, ...(s.title ? { title: s.title } : {}) } })),
    groundingSupports: sources.map((_s, i) => ({
      segment: { startIndex: 0, endIndex: g.text.length, text: g.text },
      groundingChunkIndices: [i],
    })),
    searchEntryPoint: { renderedContent: "<div>search suggestions</div>" },
  };
  const urlContextMetadata = g.urls
    ? {
        urlMetadata: g.urls.map((u) => ({
          retrievedUrl: u.url,
          urlRetrievalStatus: `URL_RETRIEVAL_STATUS_${u.status}`,
        })),
      }
    : undefined;
  const candidatesTokenCount = Math.ceil(g.text.length / 4);
  const toolUsePromptTokenCount = g.toolTokens ?? 0;
  return {
    candidates: [
      {
        content: { role: "model", parts: [{ text: g.text }] },
        finishReason: "STOP",
        index: 0,
        ...(g.noMetadata ? {} : { groundingMetadata }),
        ...(g.noMetadata || !urlContextMetadata ? {} : { urlContextMetadata }),
      },
    ],
    usageMetadata: {
      promptTokenCount,
      candidatesTokenCount,
      toolUsePromptTokenCount,
      totalTokenCount: promptTokenCount + candidatesTokenCount + toolUsePromptTokenCount,
    },
  };
}

interface AnswerContext {
  readonly model: string;
  readonly promptChars: number;
  readonly index: number;
  /** What the implicit cache served of this prompt. */
  readonly cachedTokens: number;
}

/** Gemini caches implicitly only prompts sharing at least this many tokens (2.5 Flash's minimum). */
export const IMPLICIT_CACHE_MIN_TOKENS = 1024;

/** A request's prompt as the cache sees it: the system instruction, then every part of every turn, in order. */
function promptText(body: GenerateBody): string {
  const part = (p: GenerateBodyPart) => (typeof p.text === "string" ? p.text : JSON.stringify(p));
  const system = (body.systemInstruction?.parts ?? []).map(part).join("\n");
  const turns = (body.contents ?? [])
    .map((c) => `${c.role ?? ""}:${(c.parts ?? []).map(part).join("\n")}`)
    .join("\n");
  return `${system}\n${turns}`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseBody(raw: string): GenerateBody | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as GenerateBody)
      : undefined;
  } catch {
    return undefined;
  }
}

function flattenHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json; charset=UTF-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Google's error envelope: `{ error: { code, message, status, details? } }`. */
function googleError(code: number, status: string, message: string, details?: readonly unknown[]): unknown {
  return { error: { code, message, status, ...(details !== undefined ? { details } : {}) } };
}

function errorBodyFor(
  reply:
    | { readonly status: 400; readonly message: string }
    | { readonly status: 429 | 500 | 502 | 503 | 504; readonly retryDelaySeconds?: number },
): unknown {
  switch (reply.status) {
    case 400:
      return googleError(400, "INVALID_ARGUMENT", reply.message);
    case 429: {
      // Shaped like the real service's quota error: a QuotaFailure plus, optionally, RetryInfo.
      const details: unknown[] = [
        {
          "@type": "type.googleapis.com/google.rpc.QuotaFailure",
          violations: [
            {
              quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
              quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
            },
          ],
        },
      ];
      if ("retryDelaySeconds" in reply && reply.retryDelaySeconds !== undefined) {
        details.push({
          "@type": "type.googleapis.com/google.rpc.RetryInfo",
          retryDelay: `${reply.retryDelaySeconds}s`,
        });
      }
      return googleError(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
        details,
      );
    }
    case 500:
      return googleError(
        500,
        "INTERNAL",
        "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
      );
    case 503:
      return googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
    case 502:
      return googleError(502, "UNAVAILABLE", "Bad Gateway");
    case 504:
      return googleError(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.");
  }
}

function blockedRating(): unknown {
  return { category: "HARM_CATEGORY_HARASSMENT", probability: "HIGH", blocked: true };
}

/** What a request is for, told by the response schema it carries (plan: `tasks`; address: `wanna_interject`). */
export function requestPurpose(body: GenerateBody): "plan" | "address" | "other" {
  const props =
    (body.generationConfig?.responseJsonSchema as { properties?: Record<string, unknown> } | undefined)
      ?.properties ?? {};
  if ("tasks" in props) return "plan";
  if ("wanna_interject" in props) return "address";
  return "other";
}
