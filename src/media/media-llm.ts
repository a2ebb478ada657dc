/**
 * The AI source of the media chain: one multimodal call per file through `llm.generateJson`
 * (cheap model, no thinking) — the file inline (base64 with its MIME type), a short instruction,
 * the answer `{"text": "…"}`. Pictures and video are described (purpose "describe"); voice and
 * video notes transcribed in the language spoken (purpose "transcribe": room for a long
 * transcript). A refusal (blocked or unusable twice, or a 400 about the file itself: its inline
 * data or MIME type) is an "unsupported" verdict, which the caller caches. Everything else is
 * thrown — nothing cached, tried again when the file next enters a prompt: an answer cut off at
 * maxOutputTokens (our limit, not the file's fault), other 400s (bad API key, unsupported
 * location: about us, not the file), network failures, 429/5xx after the client's retries.
 */
import { z } from "zod";
import type { MediaLlm, MediaVerdict } from "./describer";
import { TRANSCRIBED, type MediaKind } from "../base/media-descriptor";
import { LlmHttpError } from "../llm/errors";
import type { Llm } from "../llm/llm";

const Answer = z.object({ text: z.string().describe("the description, or the transcript") });

const SYSTEM = `You turn a file from a Telegram chat into short text for someone who cannot see or hear it. Reply with JSON {"text": "..."} only.`;

function instruction(kind: MediaKind): string {
  if (TRANSCRIBED.has(kind)) {
    return "Transcribe the speech in this recording word for word, in the language it is spoken in (do not translate). If nothing intelligible is said, describe the sound in a few words in brackets.";
  }
  const what =
    kind === "sticker" ? "sticker" : kind === "gif" ? "animation" : kind === "video" ? "video" : "image";
  return `Describe this ${what} in one short sentence (at most 25 words): what it shows, any text in it, and the mood. No preamble.`;
}

/** A 400 that blames the file (its inline data, MIME type or content), not the key, region or request. */
const FILE_REJECTION =
  /inline.?data|mime|media|file|image|audio|video|unsupported (content|format)|could not (be )?(process|decode|read)|unable to process/i;
const NOT_ABOUT_THE_FILE = /api.?key|location|region|country|billing|permission|project/i;

function isFileRejection(e: LlmHttpError): boolean {
  const text = `${e.apiStatus ?? ""} ${e.apiMessage}`;
  return e.status === 400 && FILE_REJECTION.test(text) && !NOT_ABOUT_THE_FILE.test(text);
}

export class LlmMediaSource implements MediaLlm {
  constructor(private readonly llm: Llm) {}

  get model(): string {
    return this.llm.modelFor("describe");
  }

  available(kind: MediaKind): boolean {
    return (
      this.llm.availability?.isAvailable(
        this.llm.modelFor(TRANSCRIBED.has(kind) ? "transcribe" : "describe"),
      ) ?? true
    );
  }

  async describe(input: {
    bytes: Buffer;
    mime: string;
    kind: MediaKind;
    chatId?: string;
    userId?: string;
  }): Promise<MediaVerdict> {
    const purpose = TRANSCRIBED.has(input.kind) ? "transcribe" : "describe";
    try {
      const res = await this.llm.generateJson<z.infer<typeof Answer>>({
        purpose,
        ...(input.chatId !== undefined ? { chatId: input.chatId } : {}),
        ...(input.userId !== undefined ? { userId: input.userId } : {}),
        schema: Answer,
        systemInstruction: SYSTEM,
        contents: [
          {
            role: "user",
            parts: [
              { inlineData: { mimeType: input.mime, data: input.bytes.toString("base64") } },
              { text: instruction(input.kind) },
            ],
          },
        ],
      });
      if (!res.ok) {
        if (res.kind === "dry") throw new Error("no LLM (dry run)");
        if (res.truncated)
          throw new Error(`${purpose} answer cut off at maxOutputTokens (${res.reason}); not cached`);
        return { status: "unsupported", reason: `${res.kind}: ${res.reason}` };
      }
      if (res.value.text.trim() === "") return { status: "unsupported", reason: "empty text" };
      return { status: "ok", text: res.value.text };
    } catch (e) {
      if (e instanceof LlmHttpError && isFileRejection(e))
        return { status: "unsupported", reason: `rejected: ${e.message}` };
      throw e;
    }
  }
}
