import { describe, expect, it } from "vitest";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { EntityStore } from "../../src/store/entities";
import { UpdateStateStore } from "../../src/store/update-state";
import { tempDbPath } from "../support/temp-dir";

describe("entity store", () => {
  it("keeps a full user when a min copy or a copy without fields arrives, across a restart", () => {
    const path = tempDbPath();
    let db = openDatabase(path);
    let store = new EntityStore(db, "Mira");
    store.observe({
      peerId: "42",
      kind: "user",
      accessHash: "777",
      firstName: "Alice",
      username: "alice",
      bot: false,
      min: false,
    });
    // A min copy (from a big supergroup): its access hash is not usable and must not replace ours.
    store.observe({ peerId: "42", kind: "user", accessHash: "1", firstName: "Al", bot: false, min: true });
    // A later full copy without a username keeps the stored one.
    store.observe({
      peerId: "42",
      kind: "user",
      accessHash: "777",
      firstName: "Alice",
      lastName: "Lee",
      bot: false,
      min: false,
    });
    closeDatabase(db);
    db = openDatabase(path);
    store = new EntityStore(db, "Mira");
    expect(store.get("42")).toEqual({
      peerId: "42",
      kind: "user",
      accessHash: "777",
      firstName: "Alice",
      lastName: "Lee",
      username: "alice",
      bot: false,
      min: false,
    });
    closeDatabase(db);
  });

  it("stores a min user's name without its access hash until a full copy comes", () => {
    const db = openDatabase(tempDbPath());
    const store = new EntityStore(db, "Mira");
    store.observe({ peerId: "7", kind: "user", accessHash: "9", firstName: "Min", bot: true, min: true });
    expect(store.get("7")).toEqual({ peerId: "7", kind: "user", firstName: "Min", bot: true, min: true });
    store.observe({ peerId: "7", kind: "user", accessHash: "9", firstName: "Min", bot: true, min: false });
    expect(store.get("7")?.accessHash).toBe("9");
    closeDatabase(db);
  });
});

describe("entity store: channels the account is not in", () => {
  it("remembers a channel left (gone) across a restart, tells the listener once each way, and a min copy changes nothing", () => {
    const path = tempDbPath();
    let db = openDatabase(path);
    let store = new EntityStore(db, "Mira");
    const told: [string, boolean][] = [];
    store.onMembership((e, gone) => told.push([e.peerId, gone]));
    const channel = {
      peerId: "-1001",
      kind: "channel" as const,
      accessHash: "5",
      title: "G",
      bot: false,
      min: false,
    };
    store.observe({ ...channel, gone: false });
    // A channel first seen as not joined (a forward's source) was never followed: nobody is told.
    store.observe({
      peerId: "-1002",
      kind: "channel",
      accessHash: "6",
      title: "Source",
      bot: false,
      min: false,
      gone: true,
    });
    store.observe({ ...channel, gone: true });
    store.observe({ ...channel, gone: true });
    store.observe({ ...channel, min: true, gone: false });
    expect(store.channels().map((e) => e.peerId)).toEqual([]);
    closeDatabase(db);
    db = openDatabase(path);
    store = new EntityStore(db, "Mira");
    expect(store.get("-1001")?.gone).toBe(true);
    store.onMembership((e, gone) => told.push([e.peerId, gone]));
    store.observe({ ...channel, gone: false }); // joined again
    expect(store.get("-1001")?.gone).toBeUndefined();
    expect(store.channels().map((e) => e.peerId)).toEqual(["-1001"]);
    expect(told).toEqual([
      ["-1001", true],
      ["-1001", false],
    ]);
    closeDatabase(db);
  });
});

describe("update state store", () => {
  it("persists the account state and channel pts", () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const s = new UpdateStateStore(db, "Mira");
    s.setAccount({ pts: 10, qts: 1, date: 100, seq: 2 });
    s.setChannel("-1005", 33);
    closeDatabase(db);
    const again = new UpdateStateStore(openDatabase(path), "Mira");
    expect(again.account()).toEqual({ pts: 10, qts: 1, date: 100, seq: 2 });
    expect(again.channelPts("-1005")).toBe(33);
    expect(again.channels()).toEqual(["-1005"]);
  });
});
