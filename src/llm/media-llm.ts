/**
 * The AI source of the media chain: one multimodal call per file through `llm.generateJson`
 * (purpose "describe": cheap model, no thinking) — the file inline (base64 with its MIME type),
 * a short instruction, the answer `{"text": "…"}`. Pictures and video are described; voice and
 * video notes transcribed in the language spoken. A refusal (blocked or unusable twice, or a 400
 * such as an unreadable file) is an "unsupported" verdict, which the caller caches; other failures
 * (network, 429/5xx after the client's retries) are thrown: nothing cached, tried again later.
 */
import { z } from "zod";
import type { MediaLlm, MediaVerdict } from "../media/describer";
import { TRANSCRIBED, type MediaKind } from "../media/descriptor";
import { LlmHttpError } from "./errors";
import type { Llm } from "./llm";

const Answer = z.object({ text: z.string().describe("the description, or the transcript") });

const SYSTEM = `You turn a file from a Telegram chat into short text for someone who cannot see or hear it. Reply with JSON {"text": "..."} only.`;

function instruction(kind: MediaKind): string {
  if (TRANSCRIBED.has(kind)) {
    return "Transcribe the speech in this recording word for word, in the language it is spoken in (do not translate). If nothing intelligible is said, describe the sound in a few words in brackets.";
  }
  const what = kind === "sticker" ? "sticker" : kind === "gif" ? "animation" : kind === "video" ? "video" : "image";
  return `Describe this ${what} in one short sentence (at most 25 words): what it shows, any text in it, and the mood. No preamble.`;
}

export class LlmMediaSource implements MediaLlm {
  constructor(private readonly llm: Llm) {}

  get model(): string {
    return this.llm.modelFor("describe");
  }

  async describe(input: { bytes: Buffer; mime: string; kind: MediaKind }): Promise<MediaVerdict> {
    try {
      const res = await this.llm.generateJson<z.infer<typeof Answer>>({
        purpose: "describe",
        schema: Answer,
        systemInstruction: SYSTEM,
        contents: [{ role: "user", parts: [{ inlineData: { mimeType: input.mime, data: input.bytes.toString("base64") } }, { text: instruction(input.kind) }] }],
      });
      if (!res.ok) {
        if (res.kind === "dry") throw new Error("no LLM (dry run)");
        return { status: "unsupported", reason: `${res.kind}: ${res.reason}` };
      }
      if (res.value.text.trim() === "") return { status: "unsupported", reason: "empty text" };
      return { status: "ok", text: res.value.text };
    } catch (e) {
      if (e instanceof LlmHttpError && e.status === 400) return { status: "unsupported", reason: `rejected: ${e.message}` };
      throw e;
    }
  }
}
