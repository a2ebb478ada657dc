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
});
