import { describe, expect, it } from "vitest";
import pino from "pino";
import { ConfigError } from "../../src/config/config-error";
import { GeminiSpeech, OpenAiSpeech } from "../../src/llm/speech";
import { speechFrom } from "../../src/llm/speech-setup";

const logger = pino({ level: "silent" });

describe("which speech model gives her voice (LLM_SPEECH)", () => {
  it("Gemini's TTS model with a Gemini key by default, none without one, none when off", () => {
    const g = speechFrom({ GEMINI_API_KEY: "k" })!(logger);
    expect(g).toBeInstanceOf(GeminiSpeech);
    expect(g.model).toBe("gemini-2.5-flash-preview-tts");
    expect(
      speechFrom({ GEMINI_API_KEY: "k", GEMINI_SPEECH_MODEL: "gemini-2.5-pro-preview-tts" })!(logger).model,
    ).toBe("gemini-2.5-pro-preview-tts");
    expect(speechFrom({})).toBeUndefined();
    expect(speechFrom({ GEMINI_API_KEY: "k", LLM_SPEECH: "off" })).toBeUndefined();
  });

  it("the OpenAI-compatible server's /v1/audio/speech, with its model", () => {
    const o = speechFrom({ LLM_SPEECH: "openai:kokoro", OPENAI_BASE_URL: "http://127.0.0.1:8880/v1" })!(
      logger,
    );
    expect(o).toBeInstanceOf(OpenAiSpeech);
    expect(o.model).toBe("kokoro");
    expect(
      speechFrom({ LLM_SPEECH: "openai", OPENAI_BASE_URL: "http://127.0.0.1:8880/v1" })!(logger).model,
    ).toBe("tts-1");
  });

  it("a bad value or a missing server is an error naming LLM_SPEECH", () => {
    expect(() => speechFrom({ LLM_SPEECH: "elevenlabs" })).toThrow(ConfigError);
    expect(() => speechFrom({ LLM_SPEECH: "elevenlabs" })).toThrow(/LLM_SPEECH.*unknown value "elevenlabs"/);
    expect(() => speechFrom({ LLM_SPEECH: "openai" })).toThrow(/needs OPENAI_BASE_URL/);
  });
});
