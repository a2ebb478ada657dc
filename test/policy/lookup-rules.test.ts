import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { DEFAULT_LOOKUPS, parseLookUpChats, type LookUpPolicy } from "../../src/config/persona-lookups";
import { LookupRules } from "../../src/policy/lookup-rules";
import { captureLogger } from "../support/log-capture";

const TRUST: Record<string, "allowed" | "contact" | "stranger"> = {
  "1": "allowed",
  "2": "contact",
  "3": "stranger",
};

function rules(policy: Partial<LookUpPolicy>, counts = { total: 0, chat: 0, person: 0 }, tokensOk = true) {
  const log = captureLogger();
  const r = new LookupRules({
    policy: () => ({ ...DEFAULT_LOOKUPS, ...policy }),
    gate: { trust: (id) => TRUST[id] ?? "stranger", mediaCall: () => tokensOk },
    counts: { today: () => counts },
    usernameOf: (chatId) => (chatId === "-1009" ? "friends" : undefined),
    // -1001500 was the basic group -4001 until it was upgraded.
    predecessorOf: (chatId) => (chatId === "-1001500" ? "-4001" : undefined),
    clock: new FakeClock(0),
    logger: log.logger,
  });
  return { r, log };
}

describe("who may make her look things up", () => {
  it("levels: owner (Allowed Users only), contacts (the default: strangers no), everyone, off", () => {
    const who = (p: Partial<LookUpPolicy>) =>
      ["1", "2", "3"].map((u) => rules(p).r.refusal("-1001", u) ?? "yes");
    expect(who({})).toEqual(["yes", "yes", "look-ups are only for contacts here"]);
    expect(who({ level: "owner" })).toEqual([
      "yes",
      "look-ups are only for the owner's people here",
      "look-ups are only for the owner's people here",
    ]);
    expect(who({ level: "everyone" })).toEqual(["yes", "yes", "yes"]);
    expect(who({ level: "off" })).toEqual(Array(3).fill("look-ups are off here"));
  });

  it("a chat's own entry wins over the persona's level, by id or @username", () => {
    const chats = parseLookUpChats(
      { file: "f", field: "Look Up Chats" },
      "- -1001: everyone\n- @friends: off",
    );
    const { r } = rules({ level: "contacts", chats });
    expect(r.refusal("-1001", "3")).toBeUndefined();
    expect(r.refusal("-1009", "1")).toBe("look-ups are off here");
    expect(r.refusal("-1002", "3")).toBe("look-ups are only for contacts here");
    expect(() => parseLookUpChats({ file: "f", field: "Look Up Chats" }, "-1001 everyone")).toThrow(
      /bad entry "-1001 everyone"/,
    );
  });

  it("a supergroup upgraded from a basic group keeps the old group's entry (by its old id), unless it has its own", () => {
    const chats = parseLookUpChats({ file: "f", field: "Look Up Chats" }, "- -4001: everyone");
    expect(rules({ level: "contacts", chats }).r.refusal("-1001500", "3")).toBeUndefined();
    expect(rules({ level: "contacts", chats }).r.refusal("-1001501", "3")).toBe(
      "look-ups are only for contacts here",
    );
    const own = parseLookUpChats({ file: "f", field: "Look Up Chats" }, "- -4001: everyone\n- -1001500: off");
    expect(rules({ level: "contacts", chats: own }).r.refusal("-1001500", "1")).toBe("look-ups are off here");
  });

  it("the day's caps (all, per chat, per person) and the token caps refuse, each with its reason, logged at info", () => {
    expect(rules({ perDay: 3 }, { total: 3, chat: 0, person: 0 }).r.refusal("-1001", "2")).toBe(
      "the day's 3 look-ups are spent",
    );
    expect(rules({ perChat: 2 }, { total: 2, chat: 2, person: 0 }).r.refusal("-1001", "2")).toBe(
      "this chat's 2 look-ups today are spent",
    );
    expect(rules({ perPerson: 1 }, { total: 1, chat: 1, person: 1 }).r.refusal("-1001", "2")).toBe(
      "this person's 1 look-ups today are spent",
    );
    const { r, log } = rules({}, undefined, false);
    expect(r.check("-1001", "2", "weather")).toBe("the token caps hold LLM calls here");
    expect(log.lines().filter((l) => l.msg === "look-up not done: weather" && l.level === 30)).toHaveLength(
      1,
    );
  });
});
