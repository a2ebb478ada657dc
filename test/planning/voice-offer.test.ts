import { describe, expect, it } from "vitest";
import { DEFAULT_VOICE, type VoiceSetting } from "../../src/config/persona-voice";
import { expandPlan } from "../../src/planning/expand-plan";
import { planSchemaFor, validatePlan } from "../../src/planning/plan-schema";
import { planVoice, writtenInstead } from "../../src/planning/voice-offer";

const setting = (mode: VoiceSetting["mode"]): VoiceSetting => ({ ...DEFAULT_VOICE, mode, maxSeconds: 20 });
/** The offer in a chat whose last answered message (#1) is of `kind`. */
const offer = (
  mode: VoiceSetting["mode"],
  o: { kind?: string; isDm?: boolean; mayVoice?: boolean; canSpeak?: boolean; refused?: boolean } = {},
) =>
  planVoice(
    {
      persona: { voice: setting(mode) },
      messages: { get: () => (o.kind ? { media: { kind: o.kind } } : {}) },
      ...(o.canSpeak === false ? {} : { voice: { refusedIn: () => o.refused === true } }),
    },
    { chatId: "42", isDm: o.isDm ?? true, mayVoice: o.mayVoice ?? true, lastId: 1 },
  );

describe("where a voice answer is offered", () => {
  it("never by default; `when spoken to` only for a voice or video note; `when it suits` always, preferred for a DM's voice note", () => {
    expect(offer("never", { kind: "voice" })).toBeUndefined();
    expect(offer("spoken-to")).toBeUndefined();
    expect(offer("spoken-to", { kind: "voice" })).toEqual({ prefer: true, maxSeconds: 20 });
    expect(offer("spoken-to", { kind: "video_note" })).toEqual({ prefer: true, maxSeconds: 20 });
    expect(offer("spoken-to", { kind: "voice", isDm: false })).toEqual({ prefer: false, maxSeconds: 20 });
    expect(offer("suits")).toEqual({ prefer: false, maxSeconds: 20 });
  });

  it("not where the chat forbids voice messages, it refused one lately, or no speech model is set up", () => {
    expect(offer("suits", { kind: "voice", mayVoice: false })).toBeUndefined();
    expect(offer("suits", { kind: "voice", refused: true })).toBeUndefined();
    expect(offer("suits", { kind: "voice", canSpeak: false })).toBeUndefined();
  });

  it("the schema has a send's voice field only where it is offered", () => {
    const base = { isDm: true, stickerSets: [] };
    expect(JSON.stringify(planSchemaFor({ ...base, voice: true }).toJSONSchema())).toContain('"voice"');
    expect(JSON.stringify(planSchemaFor(base).toJSONSchema())).not.toContain('"voice"');
    const off = validatePlan('{"tasks":[{"kind":"send","text":"hi","voice":true}]}', {
      ...base,
      inView: () => true,
    });
    expect(off.tasks).toEqual([{ kind: "send", text: "hi" }]);
  });
});

describe("a spoken send, in code", () => {
  it("links, code and answers longer than max seconds are written", () => {
    expect(writtenInstead("see you at six", 20)).toBeUndefined();
    expect(writtenInstead("it's on https://example.com/x", 20)).toMatch(/link/);
    expect(writtenInstead("www.example.com", 20)).toMatch(/link/);
    expect(writtenInstead("x".repeat(400), 20)).toMatch(/27 s to say/);
    expect(writtenInstead("run ```ls```", 20)).toMatch(/code/);
  });

  it("becomes recording for as long as the words take, then a voice send of the plain words; written when not offered", () => {
    const pacing = { startTypingDelaySec: 1, typingSpeedCps: 10, readDelaySec: 2 };
    const plan = [{ kind: "send" as const, text: "See you at **six** by the fountain!", voice: true }];
    const spoken = expandPlan(plan, { pacing, voice: { prefer: true, maxSeconds: 20 }, answers: [7] });
    expect(spoken.map((t) => [t.kind, t.payload])).toEqual([
      ["typing", { seconds: 3, action: "record", answers: [7] }],
      ["send", { text: "See you at six by the fountain!", voice: true, answers: [7] }],
    ]);
    expect(spoken[1]!.needsRandomId).toBe(true);
    const written = expandPlan(plan, { pacing, answers: [7] });
    expect(written.map((t) => t.kind)).toEqual(["typing", "send"]);
    expect(written[1]!.payload).not.toHaveProperty("voice");
    expect((written[0]!.payload as { action: string }).action).toBe("typing");
  });
});
