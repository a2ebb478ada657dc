/**
 * Gemini's embeddings through the real `@google/genai` SDK: `models.embedContent` with a set
 * `outputDimensionality` and the retrieval task types (RETRIEVAL_DOCUMENT for memories,
 * RETRIEVAL_QUERY for a plan's question). The Gemini API answers no token counts for embeddings:
 * the usage is estimated from the text (4 characters a token), and priced with the model's input
 * price (prices.ts).
 */
import { GoogleGenAI } from "@google/genai";
import type { Logger } from "pino";
import { systemClock } from "../base/clock";
import { checkedVectors, estimatedTokens, EmbedUsage } from "./embedder";
import type { EmbedRequest, Embedder } from "./embedder";
import type { LlmUsage } from "./types";

/** Gemini's embedding model when none is named. */
export const DEFAULT_GEMINI_EMBED_MODEL = "gemini-embedding-001";

export interface GeminiEmbedderOptions {
  readonly apiKey: string;
  readonly model: string;
  readonly dimensions: number;
  readonly baseUrl?: string | undefined;
  readonly logger: Logger;
  /** Deadline of one call (default 15 s). */
  readonly timeoutMs?: number;
}

export class GeminiEmbedder implements Embedder {
  readonly key: string;
  readonly model: string;
  readonly dimensions: number;
  private readonly ai: GoogleGenAI;
  private readonly usage: EmbedUsage;
  private readonly log: Logger;

  constructor(private readonly o: GeminiEmbedderOptions) {
    this.model = o.model;
    this.dimensions = o.dimensions;
    this.key = `gemini:${o.model}@${o.dimensions}`;
    this.log = o.logger.child({ component: "llm" });
    this.usage = new EmbedUsage(this.log);
    this.ai = new GoogleGenAI({
      apiKey: o.apiKey,
      httpOptions: {
        ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
        retryOptions: { attempts: 1 },
      },
    });
  }

  onUsage(listener: (u: LlmUsage) => void): () => void {
    return this.usage.add(listener);
  }

  async embed(req: EmbedRequest): Promise<Float32Array[]> {
    if (req.texts.length === 0) return [];
    const controller = new AbortController();
    // Real time: the deadline bounds an HTTP exchange.
    const timer = systemClock.setTimeout(
      () => controller.abort(),
      req.timeoutMs ?? this.o.timeoutMs ?? 15_000,
    );
    const started = performance.now();
    try {
      const res = await this.ai.models.embedContent({
        model: this.model,
        contents: [...req.texts],
        config: {
          outputDimensionality: this.o.dimensions,
          taskType: req.task === "query" ? "RETRIEVAL_QUERY" : "RETRIEVAL_DOCUMENT",
          abortSignal: controller.signal,
        },
      });
      // Counted before the answer is checked: a refused answer was billed too.
      this.usage.answered(
        { model: this.model, req, promptTokens: estimatedTokens(req.texts), started },
        "gemini call ok",
      );
      return checkedVectors(
        (res.embeddings ?? []).map((e) => e.values),
        req.texts.length,
        this.o.dimensions,
        `Gemini ${this.model}`,
      );
    } finally {
      systemClock.clearTimeout(timer);
    }
  }
}
