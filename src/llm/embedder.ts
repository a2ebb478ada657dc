/**
 * Embeddings: a text's meaning as a vector, from the configured provider — Gemini's embedding
 * model through `@google/genai` (`embedContent`, a set output dimensionality: gemini-embedder.ts)
 * or an OpenAI-compatible server's `/v1/embeddings` (a local model through Ollama or llama-server:
 * openai-embedder.ts). Memories are embedded in the background after they are stored, and a
 * plan's query once (memory/meaning.ts); never on the inbound path.
 *
 * Every answered call is accounted like the others, under the purpose `embed` (`llm_usage`,
 * `/status`, the console's costs, the daily token budget). One attempt per call, under a deadline:
 * the caller decides what a failure means (a memory stays pending and is embedded later; a
 * plan's query goes by words only).
 */
import type { LlmUsage } from "./types";
import { UsageListeners } from "./usage-listeners";

/** The purpose embedding calls are accounted under. */
const EMBED_PURPOSE = "embed";

/** What the vector is for: a memory to find, or the question that looks for one (Gemini's task types). */
type EmbedTask = "document" | "query";

export interface EmbedRequest {
  readonly texts: readonly string[];
  readonly task: EmbedTask;
  /** The chat the call is for (a plan's query): usage is attributed to it. */
  readonly chatId?: string;
  /** The deadline of the call (default the embedder's). */
  readonly timeoutMs?: number;
}

export interface Embedder {
  /**
   * What made a vector: `provider:model@dimensions` (`openai:<model>` for a model of one size). Vectors of different keys are never
   * compared; a changed key re-embeds (memory/meaning.ts).
   */
  readonly key: string;
  readonly model: string;
  /**
   * The live size of the vectors: as configured, or learnt from the latest answer (a local
   * model of one size, `openai:<model>`); undefined until then. A stored vector of the key but of
   * another size is embedded again (memory/meaning.ts).
   */
  readonly dimensions: number | undefined;
  /** One vector per text, in order, each of the key's dimensions. Throws on any failure. */
  embed(req: EmbedRequest): Promise<Float32Array[]>;
  /** Be told the tokens of every answered call. Returns unsubscribe. */
  onUsage(listener: (u: LlmUsage) => void): () => void;
}

/** The usage listeners of one embedder, with its one log line per answered call. */
export class EmbedUsage extends UsageListeners {
  /** An answered embedding call: its usage told (purpose `embed`), one log line. */
  answered(
    o: {
      readonly model: string;
      readonly req: EmbedRequest;
      readonly promptTokens: number;
      readonly started: number;
    },
    message: string,
  ): void {
    this.tell({
      purpose: EMBED_PURPOSE,
      model: o.model,
      promptTokens: o.promptTokens,
      outputTokens: 0,
      thinkingTokens: 0,
      ...(o.req.chatId !== undefined ? { chatId: o.req.chatId } : {}),
    });
    this.log.info(
      {
        purpose: EMBED_PURPOSE,
        model: o.model,
        texts: o.req.texts.length,
        promptTokens: o.promptTokens,
        ms: Math.round(performance.now() - o.started),
      },
      message,
    );
  }
}

/** The vectors of an answer, checked: one per text, each of `dims` finite numbers. */
export function checkedVectors(
  got: readonly (readonly number[] | undefined)[],
  count: number,
  dims: number | undefined,
  who: string,
): Float32Array[] {
  if (got.length !== count) throw new Error(`${who} answered ${got.length} embeddings for ${count} texts`);
  return got.map((values, i) => {
    if (values === undefined || values.length === 0) throw new Error(`${who}: embedding ${i} is empty`);
    if (dims !== undefined && values.length !== dims)
      throw new Error(`${who}: embedding ${i} has ${values.length} dimensions, expected ${dims}`);
    if (!values.every(Number.isFinite)) throw new Error(`${who}: embedding ${i} is not all numbers`);
    return Float32Array.from(values);
  });
}

/** Tokens of a text as the embedding call is billed when the server does not say (4 characters a token). */
export const estimatedTokens = (texts: readonly string[]): number =>
  texts.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
