/**
 * Which speech model gives her voice (docs/media.md "Her voice"): `LLM_SPEECH` — `gemini` (the
 * default, with GEMINI_API_KEY: `GEMINI_SPEECH_MODEL`, default gemini-2.5-flash-preview-tts),
 * `openai` or `openai:<model>` (the OpenAI-compatible server's /v1/audio/speech, `OPENAI_BASE_URL`;
 * default model tts-1), or `off`. Undefined when none is configured: she writes.
 */
import type { Logger } from "pino";
import { ConfigError } from "../config/config-error";
import { DEFAULT_SPEECH_MODEL, GeminiSpeech, OpenAiSpeech, type SpeechClient } from "./speech";

/** The OpenAI speech model when `LLM_SPEECH=openai` names none. */
const DEFAULT_OPENAI_SPEECH_MODEL = "tts-1";

export interface SpeechEnv {
  readonly LLM_SPEECH?: string | undefined;
  readonly GEMINI_API_KEY?: string | undefined;
  readonly GEMINI_SPEECH_MODEL?: string | undefined;
  readonly GOOGLE_GEMINI_BASE_URL?: string | undefined;
  readonly OPENAI_BASE_URL?: string | undefined;
  readonly OPENAI_API_KEY?: string | undefined;
}

/** The speech client factory the environment asks for (checked at start: a bad value stops it). */
export function speechFrom(env: SpeechEnv): ((logger: Logger) => SpeechClient) | undefined {
  const raw = (env.LLM_SPEECH ?? "gemini").trim();
  if (raw === "off") return undefined;
  if (raw === "gemini") {
    if (!env.GEMINI_API_KEY) return undefined;
    const model = env.GEMINI_SPEECH_MODEL ?? DEFAULT_SPEECH_MODEL;
    return (logger) =>
      new GeminiSpeech({
        apiKey: env.GEMINI_API_KEY!,
        model,
        baseUrl: env.GOOGLE_GEMINI_BASE_URL,
        logger,
      });
  }
  const m = /^openai(?::(.+))?$/.exec(raw);
  if (!m)
    throw new ConfigError({
      file: "environment",
      field: "LLM_SPEECH",
      problem: `unknown value ${JSON.stringify(raw)} (expected gemini, openai, openai:<model> or off)`,
    });
  if (!env.OPENAI_BASE_URL)
    throw new ConfigError({
      file: "environment",
      field: "LLM_SPEECH",
      problem: `${raw} needs OPENAI_BASE_URL (the server's …/v1)`,
    });
  const model = m[1]?.trim() || DEFAULT_OPENAI_SPEECH_MODEL;
  return (logger) =>
    new OpenAiSpeech({ baseUrl: env.OPENAI_BASE_URL!, apiKey: env.OPENAI_API_KEY, model, logger });
}
