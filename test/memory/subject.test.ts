import { describe, expect, it } from "vitest";
import { tellerOf } from "../../src/memory/subject";
import type { StoredMessage } from "../../src/store/messages";

const msg = (messageId: number, senderId: string, isAgent = false): StoredMessage => ({
  chatId: "-100",
  messageId,
  senderId,
  senderName: senderId,
  date: messageId * 1000,
  text: "x",
  isAgent,
});

describe("who said a memory", () => {
  const group = { chatId: "-100", isDm: false, selfId: "me" };

  it("is the author of the message that says it — never another author of the burst", () => {
    // dave plants a fact about alice; bob writes "lol" after it: dave said it, not bob.
    expect(tellerOf("alice", msg(1, "dave"), group)).toBe("dave");
    // alice's own message about herself: her words.
    expect(tellerOf("alice", msg(2, "alice"), group)).toBe("alice");
    // A chat note: its message's author.
    expect(tellerOf(undefined, msg(3, "bob"), group)).toBe("bob");
    // The persona's own message: the persona.
    expect(tellerOf("alice", msg(4, "me", true), group)).toBe("me");
    // No message: nobody.
    expect(tellerOf("alice", undefined, group)).toBeUndefined();
    // What the persona said about itself is its own, whatever the message.
    expect(tellerOf("me", msg(5, "dave"), group)).toBe("me");
  });

  it("in a private chat with no message named, the partner", () => {
    expect(tellerOf("bob", undefined, { chatId: "42", isDm: true, selfId: "me" })).toBe("42");
    expect(tellerOf("bob", msg(1, "42"), { chatId: "42", isDm: true, selfId: "me" })).toBe("42");
  });
});
