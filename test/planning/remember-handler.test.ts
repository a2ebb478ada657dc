/**
 * A plan's `remember` stores only when its task runs, and only if the messages it answers are
 * still young enough — the same answer-age check as a send (a plan held by an outage, a flood
 * wait or a restart stores nothing late). Real SQLite stores in a temp file, a fake clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { rememberHandler } from "../../src/planning/remember-handler";
import { closeDatabase, openDatabase, type Db } from "../../src/store/db";
import { MemoryStore } from "../../src/store/memories";
import { MessageStore } from "../../src/store/messages";
import type { Task } from "../../src/tasks/task";
import { captureLogger } from "../support/log-capture";
import { tempDbPath } from "../support/temp-dir";

const GROUP = "-1001";
const DAVE = "104";
const MIN = 60_000;

let db: Db | undefined;
afterEach(() => {
  if (db) closeDatabase(db);
  db = undefined;
});

function world() {
  db = openDatabase(tempDbPath());
  const clock = new FakeClock();
  const messages = new MessageStore(db, "Mira");
  const memories = new MemoryStore(db, "Mira");
  messages.insert({
    chatId: GROUP,
    messageId: 7,
    senderId: DAVE,
    senderName: "Dave",
    date: clock.now(),
    text: "remember: I run the book club",
    isAgent: false,
  });
  messages.commit();
  const { logger } = captureLogger();
  const handler = rememberHandler({ memories, messages, clock, logger, maxAnswerAgeMs: 60 * MIN });
  const task: Task<"remember"> = {
    id: 1,
    chatId: GROUP,
    kind: "remember",
    payload: { content: "Dave runs the book club", subject: DAVE, toldBy: DAVE, sourceId: 7, answers: [7] },
    status: "running",
    dependsOn: [],
    notBefore: 0,
    attempts: 0,
    createdAt: clock.now(),
  };
  return { clock, memories, handler, task };
}

describe("remember, as a task", () => {
  it("stores the memory with its teller and its message while the message is young", async () => {
    const { memories, handler, task } = world();
    expect(await handler.run(task)).toEqual({ type: "done" });
    expect(memories.about(DAVE)).toEqual([
      expect.objectContaining({
        content: "Dave runs the book club",
        toldBy: DAVE,
        sourceId: 7,
        chatId: GROUP,
      }),
    ]);
  });

  it("stores nothing once the message it answers is past the answer-age limit", async () => {
    const { clock, memories, handler, task } = world();
    await clock.advance(61 * MIN);
    expect(await handler.run(task)).toEqual({ type: "dropped", reason: "past the answer-age limit" });
    expect(memories.about(DAVE)).toEqual([]);
  });
});
