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
});
