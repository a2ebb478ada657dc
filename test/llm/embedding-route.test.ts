import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { readEnv } from "../../src/config/env";
import { parseModels } from "../../src/config/llm-routes";
import { embedRoute, withLocalEmbedPrice } from "../../src/llm/embedding-route";
import { DEFAULT_PRICES, priceFor } from "../../src/llm/prices";

const env = (vars: Record<string, string>) => readEnv(vars);

describe("LLM_EMBED: which provider embeds memories", () => {
  it("defaults to Gemini's embedding model at 256 dimensions with a key, and to off with only an OpenAI-compatible server (said why)", () => {
    expect(embedRoute(env({ GEMINI_API_KEY: "k" }))).toEqual({
      provider: "gemini",
      model: "gemini-embedding-001",
      dimensions: 256,
    });
    const off = embedRoute(env({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }));
    expect(off).toMatchObject({ provider: "off", notice: expect.stringContaining("LLM_EMBED=openai:") });
    expect(embedRoute(env({}))).toEqual({ provider: "off" });
    expect(embedRoute(env({ GEMINI_API_KEY: "k", LLM_EMBED: "off" }))).toEqual({ provider: "off" });
  });

  it("unset, embeds with the provider that plans: a Gemini key kept for media never gets the memories of a persona planning on a local server", () => {
    const local = "http://127.0.0.1:11434/v1";
    const both = { GEMINI_API_KEY: "k", OPENAI_BASE_URL: local };
    const off = embedRoute(env({ ...both, LLM_PLAN: "openai" }));
    expect(off).toEqual({
      provider: "off",
      notice: expect.stringContaining("set LLM_EMBED=openai:<embedding model>"),
    });
    // A persona's # Models decides for that persona, over the environment.
    const models = (raw: string) => parseModels({ file: "agents/Mira.md", field: "Models" }, raw);
    expect(embedRoute(env(both), models("- planning: openai:qwen3:8b"))).toMatchObject({ provider: "off" });
    expect(embedRoute(env({ ...both, LLM_PLAN: "openai" }), models("- planning: gemini"))).toMatchObject({
      provider: "gemini",
    });
    // Media on Gemini, planning local: still not Gemini.
    expect(embedRoute(env({ ...both, LLM_PLAN: "openai", LLM_MEDIA: "gemini" }))).toMatchObject({
      provider: "off",
    });
    // Asked for, it goes where it is told.
    expect(embedRoute(env({ ...both, LLM_PLAN: "openai", LLM_EMBED: "gemini" }))).toMatchObject({
      provider: "gemini",
    });
    expect(embedRoute(env({ ...both, LLM_PLAN: "openai", LLM_EMBED: "openai:nomic-embed-text" }))).toEqual({
      provider: "openai",
      model: "nomic-embed-text",
    });
    // Planning on Gemini (the default with a key): Gemini embeds.
    expect(embedRoute(env(both))).toMatchObject({ provider: "gemini" });
  });

  it("takes a model and the dimensions as written", () => {
    expect(
      embedRoute(env({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", LLM_EMBED: "openai:nomic-embed-text" })),
    ).toEqual({ provider: "openai", model: "nomic-embed-text" });
    expect(
      embedRoute(
        env({ GEMINI_API_KEY: "k", LLM_EMBED: "gemini:text-embedding-005", EMBED_DIMENSIONS: "768" }),
      ),
    ).toEqual({
      provider: "gemini",
      model: "text-embedding-005",
      dimensions: 768,
    });
  });

  it("a route to a provider that is not set up, or a bad value, stops start naming LLM_EMBED", () => {
    const problem = (vars: Record<string, string>) => {
      try {
        embedRoute(env(vars));
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      return "no error";
    };
    expect(problem({ LLM_EMBED: "gemini" })).toBe(
      "LLM_EMBED: routes embeddings to gemini, but GEMINI_API_KEY is not set",
    );
    expect(problem({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", LLM_EMBED: "openai" })).toMatch(
      /^LLM_EMBED: "openai" needs the embedding model after a colon/,
    );
    expect(problem({ GEMINI_API_KEY: "k", LLM_EMBED: "cohere:x" })).toBe(
      'LLM_EMBED: "cohere:x" is not off, gemini[:model] or openai:<model>',
    );
    expect(() => env({ EMBED_DIMENSIONS: "7" })).toThrow(/EMBED_DIMENSIONS/);
  });

  it("a local server's embedding model costs 0; Gemini's has its price; a remote server's stays unpriced", () => {
    const local = { provider: "openai", model: "nomic-embed-text" } as const;
    expect(
      priceFor(withLocalEmbedPrice(DEFAULT_PRICES, local, "http://127.0.0.1:11434/v1"), "nomic-embed-text"),
    ).toEqual({
      input: 0,
      output: 0,
    });
    expect(
      priceFor(withLocalEmbedPrice(DEFAULT_PRICES, local, "https://api.example.org/v1"), "nomic-embed-text"),
    ).toBeUndefined();
    expect(priceFor(DEFAULT_PRICES, "gemini-embedding-001")).toEqual({ input: 0.15, output: 0 });
  });
});
