import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { OwnSends, openSendMatches, TrackedActions } from "../../src/owner/own-sends";
import type { ChatActions } from "../../src/tasks/actions-port";
import { PermanentError } from "../../src/tasks/errors";
import type { Task } from "../../src/tasks/task";

const MARK = { seconds: 3, waveform: "AAAA" };
const voiceTask = (inDoubt: boolean, notes: unknown[] = [MARK]) =>
  ({ kind: "send", inDoubt, payload: { text: "see you at six", voice: true, notes } }) as unknown as Task;

describe("her own voice sends", () => {
  it("a voice send in doubt after a restart owns a voice note as long as its mark, or its words when it fell back to text", () => {
    expect(openSendMatches([voiceTask(true)], "[voice 0:03]", 3)).toBe(true);
    expect(openSendMatches([voiceTask(true)], "[voice 0:07]", 7)).toBe(false);
    expect(openSendMatches([voiceTask(true)], "see you at six")).toBe(true);
    expect(openSendMatches([voiceTask(true)], "something else")).toBe(false);
    expect(openSendMatches([voiceTask(false)], "see you at six")).toBe(false);
  });

  it("a voice send in doubt with no mark died while its note was being made: no voice note is hers", () => {
    expect(openSendMatches([voiceTask(true, [])], "[voice 0:03]", 3)).toBe(false);
    expect(openSendMatches([voiceTask(true, [])], "see you at six")).toBe(true);
  });

  it("a voice note Telegram refused leaves nothing in doubt: the owner's voice note a minute later is the owner's", async () => {
    const clock = new FakeClock();
    const own = new OwnSends(clock);
    const refusing = {
      sendVoice: () =>
        Promise.reject(new PermanentError("VOICE_MESSAGES_FORBIDDEN", "VOICE_MESSAGES_FORBIDDEN")),
    } as unknown as ChatActions;
    const tracked = new TrackedActions(refusing, own);
    const note = { chatId: "42", ogg: Buffer.alloc(0), seconds: 3, waveform: Buffer.alloc(0), randomId: "1" };
    await expect(tracked.sendVoice(note)).rejects.toBeInstanceOf(PermanentError);
    await clock.advance(60_000);
    expect(own.claim("42", 7, "[voice 4 s]")).toBe(false);
  });
});
