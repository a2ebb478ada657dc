import { describe, expect, it } from "vitest";
import { followChatMove } from "../../src/runtime/chat-move";
import { ChatMoves } from "../../src/store/chat-moves";
import { ChatSettingsStore } from "../../src/store/chat-settings";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { ReceptionStore } from "../../src/store/reception";
import { Reception } from "../../src/inbound/reception";
import { FakeClock } from "../../src/base/clock";
import { captureLogger } from "../support/log-capture";
import { tempDbPath } from "../support/temp-dir";

describe("following a group's upgrade: the owner's settings", () => {
  it("carry over with the move, and a later sighting (a replay, the old chat's object) changes nothing: the owner's /resume of the supergroup holds", () => {
    const db = openDatabase(tempDbPath());
    const moves = new ChatMoves(db, "Mira");
    const settings = new ChatSettingsStore(db, "Mira");
    const { logger } = captureLogger("error");
    settings.update("-42", { paused: true, mode: "strict" });
    followChatMove({ moves, settings, logger }, { from: "-42", to: "-10077" }, 1000);
    expect(settings.get("-10077")).toMatchObject({ paused: true, mode: "strict" });
    expect(moves.successor("-42")).toBe("-10077");
    settings.update("-10077", { paused: false }); // the owner's /resume there
    followChatMove({ moves, settings, logger }, { from: "-42", to: "-10077" }, 2000);
    expect(settings.get("-10077").paused).toBe(false);
    closeDatabase(db);
  });

  it("a crash after the settings were copied but before the move was recorded: the next sighting records it", () => {
    const db = openDatabase(tempDbPath());
    const settings = new ChatSettingsStore(db, "Mira");
    const { logger } = captureLogger("error");
    settings.update("-42", { paused: true });
    // The copy happened (the settings are written first); the move's row did not.
    settings.update("-10077", { paused: true });
    const moves = new ChatMoves(db, "Mira");
    expect(moves.successor("-42")).toBeUndefined();
    followChatMove({ moves, settings, logger }, { from: "-42", to: "-10077" }, 2000);
    expect(new ChatMoves(db, "Mira").successor("-42")).toBe("-10077");
    expect(settings.get("-10077").paused).toBe(true);
    closeDatabase(db);
  });

  it("are merged with what the new chat already has: paused if either is, its own mode kept", () => {
    const db = openDatabase(tempDbPath());
    const moves = new ChatMoves(db, "Mira");
    const settings = new ChatSettingsStore(db, "Mira");
    const { logger } = captureLogger("error");
    settings.update("-42", { paused: true, mode: "strict", silentUntil: 5000 });
    settings.update("-10077", { mode: "talkative", silentUntil: 9000 });
    followChatMove({ moves, settings, logger }, { from: "-42", to: "-10077" }, 2000);
    expect(settings.get("-10077")).toMatchObject({ paused: true, mode: "talkative", silentUntil: 9000 });
    closeDatabase(db);
  });

  it('how she was received there (an ignored remark, a "stop") holds in the new chat, unless it has its own verdict', () => {
    const db = openDatabase(tempDbPath());
    const moves = new ChatMoves(db, "Mira");
    const settings = new ChatSettingsStore(db, "Mira");
    const store = new ReceptionStore(db, "Mira");
    const clock = new FakeClock(10 * 3_600_000);
    const reception = new Reception({ store, messages: { get: () => undefined }, clock, name: "Mira" });
    const { logger } = captureLogger("error");
    const stop = { spokeAt: 1000, verdict: "rejected" as const, said: "shut up bot", updatedAt: 2000 };
    store.put({ chatId: "-42", ...stop, stopUntil: clock.now() + 3_600_000 });
    followChatMove({ moves, settings, logger, reception }, { from: "-42", to: "-10077" }, clock.now());
    expect(reception.of("-10077")).toMatchObject({ state: "rejected", said: "shut up bot" });
    expect(reception.rule("-10077", { threshold: 0.5, perHour: 3 }).held).toMatch(/told to stop/);
    // The new chat's own verdict is kept.
    store.put({ chatId: "-43", spokeAt: 1000, verdict: "waiting", updatedAt: 1000 }); // ignored by now
    store.put({ chatId: "-10078", spokeAt: 5000, verdict: "welcomed", said: "a reply", updatedAt: 6000 });
    followChatMove({ moves, settings, logger, reception }, { from: "-43", to: "-10078" }, clock.now());
    expect(reception.of("-10078")?.state).toBe("welcomed");
    closeDatabase(db);
  });
});
