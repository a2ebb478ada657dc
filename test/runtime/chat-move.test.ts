import { describe, expect, it } from "vitest";
import { followChatMove } from "../../src/runtime/chat-move";
import { ChatMoves } from "../../src/store/chat-moves";
import { ChatSettingsStore } from "../../src/store/chat-settings";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { captureLogger } from "../support/log-capture";
import { tempDbPath } from "../support/temp-dir";

describe("following a group's upgrade: the owner's settings", () => {
  it("carry over even when the process died between recording the move and copying them", () => {
    const db = openDatabase(tempDbPath());
    const moves = new ChatMoves(db, "Mira");
    const settings = new ChatSettingsStore(db, "Mira");
    const { logger } = captureLogger("error");
    settings.update("-42", { paused: true, mode: "strict" });
    // The crash: the move is recorded, the copy of the settings never happened.
    moves.record("-42", "-10077", 1000);
    expect(settings.get("-10077").paused).toBe(false);
    // The service message comes again (the update was not confirmed): the settings follow.
    followChatMove({ moves, settings, logger }, { from: "-42", to: "-10077" }, 2000);
    expect(settings.get("-10077")).toMatchObject({ paused: true, mode: "strict" });
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
});
