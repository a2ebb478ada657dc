/**
 * Structured answers from an OpenAI-compatible server, with the same contract as GeminiLlm
 * (llm.ts): the zod schema checks the answer, one more call after a refusal or an answer out of
 * shape, `{ok: false}` and one log line when that fails too — the caller stays silent.
 *
 * How the shape is asked for, per model, best first:
 * 1. `response_format: {type: "json_schema"}` with the purpose's schema (OpenAI, vLLM,
 *    llama-server, Ollama, LM Studio — most servers);
 * 2. a server that answers 400 to it gets JSON mode (`{type: "json_object"}`) with the schema in
 *    the system instruction;
 * 3. one that refuses that too gets plain text, the schema in the system instruction.
 * The step down is logged once per model and kept for the process. In every mode the answer is
 * read leniently — a `<think>` block or a ```json fence around it is taken off — and then
 * validated against the same schema; an answer that fails gets ONE repair call that shows the
 * model its answer and what was wrong with it.
 *
 * A request longer than the model's context is shortened once (the middle of its longest text —
 * the older part of the chat — is left out, the start and the newest messages kept) and sent
 * again; it is never sent again as it was.
 */
import type { Logger } from "pino";
import { z } from "zod";
import { PURPOSES, type LlmPurpose } from "../config/llm-purposes";
import type { LlmAvailability } from "./availability";
import { LlmBlockedError, LlmEmptyResponseError, LlmFormatError, LlmHttpError } from "./errors";
import { geminiJsonSchema } from "./json-schema";
import {
  formatReason,
  parseWith,
  refusal,
  type JsonOutcome,
  type JsonRequest,
  type LastRefusal,
  type Llm,
} from "./llm";
import type { OpenAiClient, StructuredMode } from "./openai-client";
import { LlmContextTooLongError } from "./openai-errors";
import type { LlmContent, LlmUsage } from "./types";

/** Calls per request: the first and the one repair. */
const CALLS = 2;

/** The modes to step down through. */
const NEXT_MODE: Readonly<Record<StructuredMode, StructuredMode | undefined>> = {
  json_schema: "json_object",
  json_object: "text",
  text: undefined,
};

/** A 400 that means "this server does not take that response_format". */
const FORMAT_UNSUPPORTED =
  /response_format|json_schema|json_object|structured|grammar|not supported|unsupported/i;

export class OpenAiLlm implements Llm {
  private readonly models: Readonly<Partial<Record<LlmPurpose, string>>>;
  /** The mode each model is known to take (learnt from 400s). */
  private readonly modes = new Map<string, StructuredMode>();

  constructor(
    private readonly o: {
      readonly client: OpenAiClient;
      readonly logger: Logger;
      /** Models per purpose; the others use the client's model. */
      readonly models?: Partial<Record<LlmPurpose, string>>;
      /** The first mode tried (OPENAI_STRUCTURED); default json_schema. */
      readonly mode?: StructuredMode;
    },
  ) {
    this.models = o.models ?? {};
  }

  get availability(): LlmAvailability {
    return this.o.client.availability;
  }

  modelFor(purpose: LlmPurpose): string {
    return this.models[purpose] ?? this.o.client.model;
  }

  /** The mode a model is asked in now. */
  modeOf(model: string): StructuredMode {
    return this.modes.get(model) ?? this.o.mode ?? "json_schema";
  }

  onUsage(listener: (u: LlmUsage) => void): () => void {
    return this.o.client.onUsage(listener);
  }

  async generateJson<T>(req: JsonRequest<T>): Promise<JsonOutcome<T>> {
    const settings = PURPOSES[req.purpose];
    const model = req.model ?? this.modelFor(req.purpose);
    const jsonSchema = geminiJsonSchema(req.schema);
    const parse = req.parse ?? ((text: string) => parseWith(req.schema, text) as T);
    let contents: readonly LlmContent[] = req.contents;
    let shortened = false;
    let last: LastRefusal = {
      kind: "empty",
      reason: "no answer",
    };
    let repair: { answer: string; problem: string } | undefined;
    for (let call = 1; call <= CALLS;) {
      const mode = this.modeOf(model);
      const turns: readonly LlmContent[] = repair
        ? [
            ...contents,
            { role: "model", parts: [{ text: repair.answer.slice(0, 4000) }] },
            {
              role: "user",
              parts: [
                {
                  text: `That answer cannot be used: ${repair.problem}. Answer again with only one JSON object in the shape asked for, nothing around it.`,
                },
              ],
            },
          ]
        : contents;
      try {
        const res = await this.o.client.generateJson({
          systemInstruction:
            mode === "json_schema" ? req.systemInstruction : withSchema(req.systemInstruction, jsonSchema),
          contents: turns,
          jsonSchema,
          mode,
          temperature: settings.temperature,
          maxOutputTokens:
            settings.maxOutputTokens + (settings.thinkingBudget > 0 ? settings.thinkingBudget : 0),
          model,
          purpose: req.purpose,
          ...(req.chatId !== undefined ? { chatId: req.chatId } : {}),
          ...(req.userId !== undefined ? { userId: req.userId } : {}),
        });
        const truncated = res.finishReason === "MAX_TOKENS";
        try {
          return { ok: true, value: parse(answerJson(res.text)), model: res.model, calls: call };
        } catch (e) {
          if (!(e instanceof LlmFormatError || e instanceof z.ZodError)) throw e;
          const reason = `${truncated ? "cut off at maxOutputTokens: " : ""}${formatReason(e)}`;
          last = { kind: "malformed", reason, ...(truncated ? { truncated } : {}) };
          repair = { answer: res.text, problem: reason };
        }
      } catch (e) {
        if (e instanceof LlmContextTooLongError) {
          if (shortened) {
            last = {
              kind: "empty",
              reason: "the request is too long for the model's context even shortened",
            };
            break;
          }
          contents = shortenContents(contents);
          shortened = true;
          this.o.logger.warn(
            {
              component: "llm",
              purpose: req.purpose,
              model,
              ...(req.chatId !== undefined ? { chatId: req.chatId } : {}),
            },
            `${model}: the ${req.purpose} request is longer than its context window; sending it once more with the older part of the chat left out`,
          );
          continue;
        }
        if (e instanceof LlmHttpError && e.status === 400 && FORMAT_UNSUPPORTED.test(e.apiMessage)) {
          const next = NEXT_MODE[mode];
          if (next !== undefined) {
            this.modes.set(model, next);
            this.o.logger.warn(
              { component: "llm", model, from: mode, to: next, error: e.apiMessage },
              `${model} does not take response_format ${mode}; asking it with ${next === "text" ? "the schema in the prompt" : "JSON mode"} from now on (the answer is still checked against the schema)`,
            );
            continue;
          }
        }
        if (e instanceof LlmBlockedError) last = { kind: "blocked", reason: `answer blocked: ${e.reason}` };
        else if (e instanceof LlmEmptyResponseError)
          last = {
            kind: "empty",
            reason: `empty answer${e.finishReason ? ` (${e.finishReason})` : ""}`,
            ...(e.finishReason === "MAX_TOKENS" ? { truncated: true } : {}),
          };
        else throw e;
      }
      call++;
    }
    return refusal(this.o.logger, req, last, CALLS);
  }
}

/** The system instruction with the answer's schema spelt out (JSON mode and plain text). */
function withSchema(system: string, schema: Record<string, unknown>): string {
  return `${system}\n\nAnswer with one JSON object and nothing else (no prose, no code fence), matching this JSON Schema:\n${JSON.stringify(schema)}`;
}

/**
 * The JSON in an answer: without a `<think>…</think>` block (reasoning models put it in the
 * content), out of a ```json fence, else from the first `{` to the last `}`.
 */
function answerJson(text: string): string {
  const t = text.replace(/<think>[\s\S]*?<\/think>/gi, "").trim();
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(t);
  if (fence) return fence[1]!.trim();
  if (t.startsWith("{") || t.startsWith("[")) return t;
  const start = t.indexOf("{");
  const end = t.lastIndexOf("}");
  return start >= 0 && end > start ? t.slice(start, end + 1) : t;
}

/** The note put where the older part of a too-long request was. */
export const SHORTENED_NOTE =
  "[… an older part of the chat is left out here: it did not fit the model's context …]";

/**
 * The contents with the middle of the longest text part left out (its first fifth and its last
 * two fifths kept, cut at line ends): a request's longest text is the chat, oldest first, and its
 * newest messages are at its end.
 */
function shortenContents(contents: readonly LlmContent[]): LlmContent[] {
  let best: { turn: number; part: number; length: number } | undefined;
  contents.forEach((c, turn) =>
    c.parts.forEach((p, part) => {
      if ("text" in p && (best === undefined || p.text.length > best.length))
        best = { turn, part, length: p.text.length };
    }),
  );
  return contents.map((c, turn) =>
    turn !== best?.turn
      ? c
      : {
          role: c.role,
          parts: c.parts.map((p, part) =>
            part === best!.part && "text" in p ? { text: cutMiddle(p.text) } : p,
          ),
        },
  );
}

function cutMiddle(text: string): string {
  const headEnd = text.lastIndexOf("\n", Math.floor(text.length * 0.2));
  const tailStart = text.indexOf("\n", Math.floor(text.length * 0.6));
  const head = text.slice(0, headEnd > 0 ? headEnd : Math.floor(text.length * 0.2));
  const tail = text.slice(tailStart > 0 ? tailStart + 1 : Math.floor(text.length * 0.6));
  return `${head}\n${SHORTENED_NOTE}\n${tail}`;
}
