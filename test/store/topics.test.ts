import { describe, expect, it } from "vitest";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { TopicStore } from "../../src/store/topics";
import { tempDbPath } from "../support/temp-dir";

describe("forum topic titles", () => {
  it("the newest service message wins: an older one arriving late (a catch-up) does not undo a rename", () => {
    const db = openDatabase(tempDbPath());
    try {
      const topics = new TopicStore(db, "Mira");
      topics.named("-1001", 5, "Trips", 10); // renamed by message 10
      topics.named("-1001", 5, "Travel", 5); // the creation (message 5), delivered after it
      const title = () =>
        db.prepare("SELECT title FROM topics WHERE chat_id = '-1001' AND topic_id = 5").pluck().get();
      expect(title()).toBe("Trips");
      topics.named("-1001", 5, "Journeys", 12);
      expect(title()).toBe("Journeys");
    } finally {
      closeDatabase(db);
    }
  });

  it("a refused send closes the topic to her until a newer reopen; a deleted topic stays shut for good", () => {
    const db = openDatabase(tempDbPath());
    try {
      const topics = new TopicStore(db, "Mira");
      expect(topics.closure("-1001", 5)).toBe("open");
      topics.closedBy("-1001", 5, true, 20);
      expect(topics.closure("-1001", 5)).toBe("closed");
      topics.refused("-1001", 5, false, 40); // TOPIC_CLOSED, the chat's newest message then #40
      expect(topics.closure("-1001", 5)).toBe("refused");
      topics.closedBy("-1001", 5, false, 30); // an older reopen, met late: it does not undo the refusal
      expect(topics.closure("-1001", 5)).toBe("refused");
      topics.closedBy("-1001", 5, false, 41); // reopened after it
      expect(topics.closure("-1001", 5)).toBe("open");
      topics.refused("-1001", 7, true, 41); // TOPIC_DELETED
      topics.closedBy("-1001", 7, false, 99);
      expect(topics.closure("-1001", 7)).toBe("deleted");
    } finally {
      closeDatabase(db);
    }
  });

  it("a refusal after a service message newer than the chat's newest stored message is kept (not dropped), and only a reopen newer than that service message undoes it", () => {
    const db = openDatabase(tempDbPath());
    try {
      const topics = new TopicStore(db, "Mira");
      topics.closedBy("-1001", 5, false, 50); // reopened by service message #50 (never stored as a message)
      topics.refused("-1001", 5, false, 40, 0); // TOPIC_CLOSED; the chat's newest stored message is #40
      expect(topics.closure("-1001", 5, 0)).toBe("refused");
      topics.closedBy("-1001", 5, false, 50); // the same reopen again (a catch-up): not newer
      expect(topics.closure("-1001", 5, 0)).toBe("refused");
      topics.closedBy("-1001", 5, false, 51);
      expect(topics.closure("-1001", 5, 0)).toBe("open");
    } finally {
      closeDatabase(db);
    }
  });

  it("a topic closed to her by a refused send counts as merely closed a day later (her rights decide again); refused again, it is shut again", () => {
    const db = openDatabase(tempDbPath());
    try {
      const topics = new TopicStore(db, "Mira");
      const DAY = 86_400_000;
      topics.refused("-1001", 5, false, 40, 1_000);
      expect(topics.closure("-1001", 5, 1_000 + DAY - 1)).toBe("refused");
      expect(topics.closure("-1001", 5, 1_000 + DAY)).toBe("closed");
      topics.refused("-1001", 5, false, 40, 1_000 + DAY);
      expect(topics.closure("-1001", 5, 1_000 + DAY + 1)).toBe("refused");
      topics.refused("-1001", 7, true, 41, 0); // TOPIC_DELETED: never again
      expect(topics.closure("-1001", 7, 10 * DAY)).toBe("deleted");
    } finally {
      closeDatabase(db);
    }
  });
});
