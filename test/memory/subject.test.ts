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
  const group = (...targets: StoredMessage[]) => ({ chatId: "-100", isDm: false, targets });

  it("in a group, a fact about someone is the statement of the newest other author of the messages answered", () => {
    // dave plants a fact about alice, even in a burst alice wrote in too: dave said it.
    expect(tellerOf("alice", group(msg(1, "dave")))).toBe("dave");
    expect(tellerOf("alice", group(msg(1, "dave"), msg(2, "alice")))).toBe("dave");
    expect(tellerOf("alice", group(msg(1, "alice"), msg(2, "dave"), msg(3, "bob")))).toBe("bob");
    // Only alice wrote: her own words.
    expect(tellerOf("alice", group(msg(1, "alice"), msg(2, "me", true)))).toBe("alice");
    // A chat note: the newest author.
    expect(tellerOf(undefined, group(msg(1, "alice"), msg(2, "bob")))).toBe("bob");
    expect(tellerOf("alice", group(msg(1, "me", true)))).toBeUndefined();
  });

  it("in a private chat, the partner said it, whoever it is about", () => {
    expect(tellerOf("bob", { chatId: "42", isDm: true, targets: [msg(1, "42")] })).toBe("42");
  });
});
