import { describe, expect, it } from "vitest";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { IntentionStore } from "../../src/store/intentions";
import { tempDbPath } from "../support/temp-dir";

const H = 3_600_000;

describe("intentions table", () => {
  it("keeps intentions across a reopen, hands out what is due in time order, and settles each once", () => {
    const path = tempDbPath();
    let db = openDatabase(path);
    let s = new IntentionStore(db, "Mira");
    const t0 = 1_000 * H;
    const late = s.add({
      chatId: "7",
      note: "ask how the exam went",
      dueAt: t0 + 20 * H,
      setAt: t0,
      inReplyTo: 12,
      forUser: "7",
    });
    const soon = s.add({ chatId: "7", note: "remind them of the call", dueAt: t0 + 2 * H, setAt: t0 });
    s.add({ chatId: "-100", note: "share the photos", dueAt: t0 + 3 * H, setAt: t0 });
    new IntentionStore(db, "Other").add({ chatId: "7", note: "not Mira's", dueAt: t0, setAt: t0 });
    closeDatabase(db);

    db = openDatabase(path);
    s = new IntentionStore(db, "Mira");
    expect(s.nextDue()).toBe(t0 + 2 * H);
    expect(s.openIn("7").map((i) => i.note)).toEqual(["remind them of the call", "ask how the exam went"]);
    expect(s.countOpenIn("7")).toBe(2);
    expect(s.get(late.id)).toMatchObject({ inReplyTo: 12, forUser: "7", state: "pending", spoke: false });
    expect(s.due(t0 + 3 * H, 10).map((i) => i.note)).toEqual(["remind them of the call", "share the photos"]);

    s.firing(soon.id, 99, t0 + 2 * H);
    expect(s.due(t0 + 3 * H, 10).map((i) => i.id)).not.toContain(soon.id);
    expect(s.firedBetween(t0, t0 + 24 * H)).toBe(1);
    // The day's calls: the fired one, and the two pending ones due that day.
    expect(s.callsBetween(t0, t0 + 24 * H)).toBe(3);
    s.fired(soon.id, true, 99, t0 + 2 * H);
    expect(s.spokeSince("7", t0)).toBe(1);
    expect(s.spokeSince("7", t0 + 3 * H)).toBe(0);
    s.fired(soon.id, false, 99, t0 + 2 * H); // once only: no longer firing
    expect(s.get(soon.id)?.spoke).toBe(true);

    s.hold(late.id, t0 + 30 * H, "held: asleep until 07:30", t0);
    expect(s.get(late.id)).toMatchObject({
      dueAt: t0 + 20 * H,
      notBefore: t0 + 30 * H,
      reason: "held: asleep until 07:30",
    });
    expect(s.missBefore(t0 + 10 * H, "missed: the process was down", t0 + 11 * H).map((i) => i.note)).toEqual(
      ["share the photos"],
    );
    expect(s.cancel(late.id, "cancelled by the owner", t0)?.state).toBe("cancelled");
    expect(s.cancel(late.id, "again", t0)).toBeUndefined();
    expect(s.open(10).total).toBe(0);
    expect(s.recentEnded(10).map((i) => i.state)).toEqual(["missed", "fired", "cancelled"]);
    closeDatabase(db);
  });

  it("keeps a refusal, never pending", () => {
    const db = openDatabase(tempDbPath());
    const s = new IntentionStore(db, "Mira");
    const r = s.refuse(
      { chatId: "7", note: "ping again", dueAt: 5, setAt: 1 },
      "at most 3 pending intentions in this chat",
    );
    expect(s.get(r.id)).toMatchObject({
      state: "refused",
      reason: "at most 3 pending intentions in this chat",
    });
    expect(s.countOpenIn("7")).toBe(0);
    expect(s.nextDue()).toBeUndefined();
    closeDatabase(db);
  });
});
