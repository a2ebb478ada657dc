import { Api } from "telegram";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../src/base/clock";
import { toLong } from "../../../emulator/long";
import { TYPING_STATUS_MS, TypingWatch } from "../../../src/telegram/inbound/typing-watch";

const typing = () => new Api.SendMessageTypingAction();
const cancel = () => new Api.SendMessageCancelAction();
const user = (id: number) => new Api.PeerUser({ userId: toLong(id) });

describe("TypingWatch", () => {
  it("reads the three typing updates into (chat, topic, user) statuses that last 6 s", () => {
    const clock = new FakeClock();
    const w = new TypingWatch(() => clock.now());
    const t0 = clock.now();
    expect(w.note(new Api.UpdateUserTyping({ userId: toLong(7), action: typing() }))).toBe(true);
    expect(
      w.note(new Api.UpdateChatUserTyping({ chatId: toLong(5), fromId: user(7), action: typing() })),
    ).toBe(true);
    expect(
      w.note(
        new Api.UpdateChannelUserTyping({
          channelId: toLong(9),
          fromId: user(7),
          topMsgId: 4,
          action: typing(),
        }),
      ),
    ).toBe(true);
    expect(w.typingUntil("7", undefined, "7")).toBe(t0 + TYPING_STATUS_MS);
    expect(w.typingUntil("-5", undefined, "7")).toBe(t0 + TYPING_STATUS_MS);
    expect(w.typingUntil("-1009", 4, "7")).toBe(t0 + TYPING_STATUS_MS);
    // Another topic, the General topic (1 = none) and another user are not typing.
    expect(w.typingUntil("-1009", 5, "7")).toBe(0);
    expect(w.typingUntil("-1009", 1, "7")).toBe(0);
    expect(w.typingUntil("-5", undefined, "8")).toBe(0);
  });

  it("a cancel ends the status; actions that announce no message are ignored; other updates are not its business", () => {
    const clock = new FakeClock();
    const w = new TypingWatch(() => clock.now());
    w.note(new Api.UpdateUserTyping({ userId: toLong(7), action: typing() }));
    w.note(new Api.UpdateUserTyping({ userId: toLong(7), action: cancel() }));
    expect(w.typingUntil("7", undefined, "7")).toBe(0);
    w.note(new Api.UpdateUserTyping({ userId: toLong(7), action: new Api.SpeakingInGroupCallAction() }));
    expect(w.typingUntil("7", undefined, "7")).toBe(0);
    w.note(new Api.UpdateUserTyping({ userId: toLong(7), action: new Api.SendMessageRecordAudioAction() }));
    expect(w.typingUntil("7", undefined, "7")).toBeGreaterThan(clock.now());
    expect(
      w.note(new Api.UpdateNewMessage({ message: new Api.MessageEmpty({ id: 1 }), pts: 1, ptsCount: 1 })),
    ).toBe(false);
  });

  it("keeps its memory bounded: lapsed statuses are swept once it holds 1,000", async () => {
    const clock = new FakeClock();
    const w = new TypingWatch(() => clock.now());
    for (let i = 0; i < 1000; i++) w.set("-5", undefined, String(i), typing());
    await clock.advance(TYPING_STATUS_MS + 1);
    w.set("-5", undefined, "x", typing());
    expect(w.size).toBe(1);
  });
});
