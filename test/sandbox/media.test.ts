import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { helpText, parseSandboxLine } from "../../src/sandbox/grammar";
import { oggDuration } from "../../src/sandbox/media";
import { sandbox } from "../support/sandbox-run";
import { GeminiFake, type GenerateBody } from "../support/gemini-fake";

const inline = (b: GenerateBody) =>
  (b.contents ?? []).flatMap((c) => c.parts ?? []).find((p) => p.inlineData)?.inlineData as
    { mimeType: string; data: string } | undefined;
/** A planning request (it may carry the addressed picture inline too). */
const isPlan = (b: GenerateBody) =>
  (b.systemInstruction?.parts ?? []).some((p) => (p.text ?? "").includes('{"tasks":[...]}'));

describe("sandbox media input", () => {
  it("parses [media] before the colon in every form; the caption is optional", () => {
    expect(parseSandboxLine("alice [photo samples/photo.jpg]: caption")).toEqual({
      kind: "post",
      member: "alice",
      text: "caption",
      media: "photo samples/photo.jpg",
    });
    expect(parseSandboxLine("bob [sticker Cats 😺]")).toEqual({
      kind: "post",
      member: "bob",
      text: "",
      media: "sticker Cats 😺",
    });
    expect(parseSandboxLine("dm carol [voice samples/voice.ogg]")).toEqual({
      kind: "dm",
      member: "carol",
      text: "",
      media: "voice samples/voice.ogg",
    });
    expect(parseSandboxLine("bob > 3 [photo x.jpg]: this")).toEqual({
      kind: "post",
      member: "bob",
      replyTo: 3,
      text: "this",
      media: "photo x.jpg",
    });
    expect(parseSandboxLine("alice: look [here]")).toEqual({
      kind: "post",
      member: "alice",
      text: "look [here]",
    });
    expect(parseSandboxLine("alice")).toBeUndefined();
    expect(helpText()).toContain("alice [photo samples/photo.jpg]: look");
    expect(helpText()).toContain("sticker <set> <emoji>");
  });

  it("the shipped samples are small and well-formed (a JPEG, an Ogg Opus voice note of 1 s)", () => {
    const jpg = readFileSync("samples/photo.jpg");
    expect(jpg.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(jpg.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
    const ogg = readFileSync("samples/voice.ogg");
    expect(ogg.subarray(0, 4).toString()).toBe("OggS");
    expect(ogg.includes(Buffer.from("OpusHead"))).toBe(true);
    expect(oggDuration(ogg)).toBe(1);
    expect(jpg.length + ogg.length).toBeLessThan(4096);
  });

  it("a photo and a voice note typed in the sandbox reach Gemini inline and come back described", async () => {
    const gemini = await GeminiFake.start();
    gemini.respondWith((body) => {
      const file = isPlan(body) ? undefined : inline(body);
      if (file?.mimeType === "image/jpeg") return { json: { text: "a sun over a grey horizon" } };
      if (file?.mimeType === "audio/ogg") return { json: { text: "(silence)" } };
      return { json: { tasks: [] } };
    });
    try {
      const out = await sandbox(
        [
          "alice [photo samples/photo.jpg]: Mira, look",
          "dm carol [voice samples/voice.ogg]",
          "bob [hologram x]",
        ],
        {
          GEMINI_API_KEY: "k",
          GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
        },
      );
      expect(out).toContain("#2 alice: [photo] Mira, look");
      expect(out).toContain("[dm] #1 carol: [voice]");
      expect(out.some((l) => l.startsWith('! unknown media "[hologram x]"'))).toBe(true);
      const sent = gemini.requests.filter((r) => !isPlan(r.body)).map((r) => inline(r.body)?.mimeType);
      expect(sent).toContain("image/jpeg");
      expect(sent).toContain("audio/ogg");
      const plans = gemini.requests.filter((r) => isPlan(r.body)).map((r) => JSON.stringify(r.body.contents));
      expect(plans.some((p) => p.includes("[photo: a sun over a grey horizon]"))).toBe(true);
      expect(plans.some((p) => p.includes('[voice 0:01: \\"(silence)\\"]'))).toBe(true);
    } finally {
      await gemini.close();
    }
  }, 30_000);
});
