/**
 * A loopback stand-in for an OpenAI-compatible server (`POST /v1/chat/completions`, `POST
 * /v1/embeddings` with the deterministic vectors of fake-embeddings.ts, `GET
 * /v1/models`): a real `node:http` server on 127.0.0.1 that the real `openai` SDK is pointed at
 * (`baseURL`), like GeminiFake for `@google/genai`. It can be a server without json_schema support
 * (`jsonSchema: false` answers 400 to it, as some do), one without JSON mode either, one that
 * checks the key, and it answers from a FIFO script, else `respondWith`, else an empty plan.
 */
import { fakeEmbedding } from "./fake-embeddings";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type OpenAiFakeReply =
  /** An answer whose content is `JSON.stringify(json)`. */
  | { readonly json: unknown; readonly usage?: { prompt_tokens: number; completion_tokens: number } }
  /** An answer with this raw content (prose, a fenced block, a `<think>` block…); `finish` "length" for one cut off. */
  | { readonly text: string; readonly finish?: "stop" | "length" }
  /** An HTTP error with an OpenAI-style body; `retryAfter` sets the header as written. */
  | {
      readonly status: number;
      readonly message?: string;
      readonly code?: string;
      readonly retryAfter?: string;
    }
  /** The request is longer than the model's context (as vLLM words it). */
  | { readonly contextTooLong: true }
  /** HTTP 200 with a body that is not JSON. */
  | { readonly garbled: true }
  /** The connection is dropped before an answer (a crashed server, a dropped stream). */
  | { readonly reset: true }
  /** Answer `then` after a real `setTimeout`. */
  | { readonly delayMs: number; readonly then: OpenAiFakeReply };

/** A recorded chat-completions request. */
export interface ChatRequestRecord {
  readonly model: string;
  readonly body: ChatBody;
  readonly authorization: string | undefined;
}

export interface ChatBody {
  readonly model: string;
  readonly messages: readonly { role: string; content: string | readonly Record<string, unknown>[] }[];
  readonly response_format?: { type: string; json_schema?: { schema?: unknown } };
  readonly temperature?: number;
  readonly max_tokens?: number;
}

export interface OpenAiFakeOptions {
  /** false: a 400 to `response_format: json_schema`. Default true. */
  readonly jsonSchema?: boolean;
  /** false: a 400 to `response_format: json_object` too. Default true. */
  readonly jsonObject?: boolean;
  /** The models `GET /v1/models` lists and chat accepts (others get 404 "model not found"); default any. */
  readonly models?: readonly string[];
  /** When set, any other bearer token gets 401. */
  readonly apiKey?: string;
}

/** One `/v1/embeddings` request. */
export interface EmbeddingsRecord {
  readonly model: string;
  readonly input: readonly string[];
  readonly dimensions: number | undefined;
}

/** The size of the fake's embedding model when a request asks for none. */
const FAKE_EMBEDDING_SIZE = 384;

export class OpenAiFake {
  readonly requests: ChatRequestRecord[] = [];
  /** Every `/v1/embeddings` request (deterministic vectors: fake-embeddings.ts). */
  readonly embedRequests: EmbeddingsRecord[] = [];
  /** The embedding model's own size, when a request asks for none (another model pulled under the same name: change it). */
  embeddingSize = FAKE_EMBEDDING_SIZE;
  /** Answer the model's own size whatever `dimensions` asks (some servers ignore the field). */
  ignoresDimensions = false;
  /** Scripted replies, first in first out. */
  readonly queue: OpenAiFakeReply[] = [];
  respondWith: ((body: ChatBody) => OpenAiFakeReply) | undefined;

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
    private readonly o: OpenAiFakeOptions,
  ) {}

  static async start(o: OpenAiFakeOptions = {}): Promise<OpenAiFake> {
    const holder: { fake?: OpenAiFake } = {};
    const server = createServer((req, res) => void holder.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const fake = new OpenAiFake(server, `http://127.0.0.1:${port}/v1`, o);
    holder.fake = fake;
    return fake;
  }

  reply(...replies: OpenAiFakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** The text of the newest request's last user message. */
  lastUserText(i = this.requests.length - 1): string {
    const msgs = this.requests[i]?.body.messages ?? [];
    const last = [...msgs].reverse().find((m) => m.role === "user");
    if (!last) return "";
    return typeof last.content === "string"
      ? last.content
      : last.content.map((p) => (typeof p.text === "string" ? p.text : "")).join("\n");
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const auth = req.headers.authorization;
    if (this.o.apiKey !== undefined && auth !== `Bearer ${this.o.apiKey}`)
      return send(res, 401, {
        error: {
          message: "Incorrect API key provided",
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      });
    if (req.method === "GET" && req.url === "/v1/models")
      return send(res, 200, {
        object: "list",
        data: (this.o.models ?? ["fake-model"]).map((id) => ({
          id,
          object: "model",
          created: 0,
          owned_by: "fake",
        })),
      });
    if (req.method === "POST" && req.url === "/v1/embeddings") {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        model: string;
        input: string | string[];
        dimensions?: number;
      };
      const input = typeof body.input === "string" ? [body.input] : body.input;
      this.embedRequests.push({ model: body.model, input, dimensions: body.dimensions });
      if (this.o.models && !this.o.models.includes(body.model))
        return send(res, 404, {
          error: { message: `model '${body.model}' not found`, code: "model_not_found" },
        });
      return send(res, 200, {
        object: "list",
        model: body.model,
        data: input.map((text, index) => ({
          object: "embedding",
          index,
          embedding: fakeEmbedding(
            text,
            (this.ignoresDimensions ? undefined : body.dimensions) ?? this.embeddingSize,
          ),
        })),
        usage: { prompt_tokens: input.reduce((n, t) => n + Math.ceil(t.length / 4), 0), total_tokens: 0 },
      });
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions")
      return send(res, 404, { error: { message: "not found" } });
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatBody;
    this.requests.push({ model: body.model, body, authorization: auth });
    if (this.o.models && !this.o.models.includes(body.model))
      return send(res, 404, {
        error: { message: `model '${body.model}' not found, try pulling it first`, code: "model_not_found" },
      });
    const rf = body.response_format?.type;
    if (
      (rf === "json_schema" && this.o.jsonSchema === false) ||
      (rf === "json_object" && this.o.jsonObject === false)
    )
      return send(res, 400, {
        error: {
          message: `response_format type ${rf} is not supported by this server`,
          type: "invalid_request_error",
        },
      });
    const reply = this.queue.shift() ?? this.respondWith?.(body) ?? { json: { tasks: [] } };
    await this.answer(res, reply, body);
  }

  private async answer(res: ServerResponse, reply: OpenAiFakeReply, body: ChatBody): Promise<void> {
    if ("delayMs" in reply) {
      await new Promise((r) => setTimeout(r, reply.delayMs));
      return this.answer(res, reply.then, body);
    }
    if ("reset" in reply) {
      res.socket?.destroy();
      return;
    }
    if ("garbled" in reply) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"id":"x","choices":[{"message":{"content":"{\\"tas');
      return;
    }
    if ("contextTooLong" in reply)
      return send(res, 400, {
        error: {
          message: "This model's maximum context length is 4096 tokens. However, you requested 9000 tokens.",
          type: "BadRequestError",
          code: 400,
        },
      });
    if ("status" in reply) {
      res.writeHead(reply.status, {
        "content-type": "application/json",
        ...(reply.retryAfter !== undefined ? { "retry-after": reply.retryAfter } : {}),
      });
      res.end(
        JSON.stringify({
          error: {
            message: reply.message ?? `status ${reply.status}`,
            ...(reply.code ? { code: reply.code } : {}),
          },
        }),
      );
      return;
    }
    const content = "json" in reply ? JSON.stringify(reply.json) : reply.text;
    const promptChars = JSON.stringify(body.messages).length;
    const usage = ("json" in reply ? reply.usage : undefined) ?? {
      prompt_tokens: Math.ceil(promptChars / 4),
      completion_tokens: Math.ceil(content.length / 4),
    };
    send(res, 200, {
      id: `chatcmpl-${this.requests.length}`,
      object: "chat.completion",
      created: 0,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content },
          finish_reason: "finish" in reply && reply.finish ? reply.finish : "stop",
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  }
}

function send(res: ServerResponse, status: number, json: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(json));
}
