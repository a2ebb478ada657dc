/**
 * Embeddings from an OpenAI-compatible server (`POST /v1/embeddings`: Ollama, llama-server,
 * vLLM, LM Studio, OpenAI) through the real `openai` SDK. `dimensions` is sent only when set (many
 * local models have one size and some servers refuse the field); otherwise the size is what the
 * model answers (its key names the model alone), learnt from each answer: a model replaced under
 * its name with another size is noticed, and its old vectors embedded again (memory/meaning.ts).
 * Usage is the server's `prompt_tokens` (estimated when it sends none), counted before the answer
 * is checked.
 */
import OpenAI from "openai";
import type { Logger } from "pino";
import { checkedVectors, estimatedTokens, EmbedUsage } from "./embedder";
import type { EmbedRequest, Embedder } from "./embedder";
import type { LlmUsage } from "./types";

export interface OpenAiEmbedderOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
  /** Asked for when set; else the model's own size. */
  readonly dimensions?: number;
  readonly logger: Logger;
  /** Deadline of one call (default 15 s). */
  readonly timeoutMs?: number;
}

export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  private readonly sdk: OpenAI;
  private readonly usage: EmbedUsage;
  private readonly log: Logger;
  /** The model's size, once an answer told it (or as configured). */
  private dims: number | undefined;

  /** The size asked for, else the one the latest answer had (a model replaced under its name may change it). */
  get dimensions(): number | undefined {
    return this.dims;
  }

  constructor(private readonly o: OpenAiEmbedderOptions) {
    this.model = o.model;
    this.dims = o.dimensions;
    this.log = o.logger.child({ component: "llm" });
    this.usage = new EmbedUsage(this.log);
    this.sdk = new OpenAI({ baseURL: o.baseUrl, apiKey: o.apiKey, maxRetries: 0 });
  }

  /** `openai:<model>@<dimensions>` when set; else `openai:<model>` (a model has one size). */
  get key(): string {
    return `openai:${this.model}${this.o.dimensions !== undefined ? `@${this.o.dimensions}` : ""}`;
  }

  onUsage(listener: (u: LlmUsage) => void): () => void {
    return this.usage.add(listener);
  }

  async embed(req: EmbedRequest): Promise<Float32Array[]> {
    if (req.texts.length === 0) return [];
    const started = performance.now();
    const res = await this.sdk.embeddings.create(
      {
        model: this.model,
        input: [...req.texts],
        encoding_format: "float",
        ...(this.o.dimensions !== undefined ? { dimensions: this.o.dimensions } : {}),
      },
      { timeout: req.timeoutMs ?? this.o.timeoutMs ?? 15_000 },
    );
    // Counted before the answer is checked: a server that ignores `dimensions` bills the call anyway.
    const promptTokens = res.usage?.prompt_tokens ?? estimatedTokens(req.texts);
    this.usage.answered({ model: this.model, req, promptTokens, started }, "openai-compatible call ok");
    const data = [...res.data].sort((a, b) => a.index - b.index);
    const got = data.map((d) => d.embedding);
    // No size asked for: the model's own, as this answer has it (all of one size), so a model
    // replaced under its name with another size is learnt, and its old vectors embedded again.
    const size = got[0]?.length;
    const dims =
      this.o.dimensions === undefined && size !== undefined && got.every((v) => v?.length === size)
        ? size
        : this.dims;
    const vectors = checkedVectors(got, req.texts.length, dims, `OpenAI-compatible ${this.model}`);
    this.dims = dims;
    return vectors;
  }
}
