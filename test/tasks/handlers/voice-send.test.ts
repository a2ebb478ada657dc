import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../src/base/clock";
import { AccountLostError } from "../../../src/tasks/errors";
import type { ActionHandlerDeps } from "../../../src/tasks/handlers/action-deps";
import { sendAsVoice } from "../../../src/tasks/handlers/voice-send";
import type { MadeVoice, VoiceMaker } from "../../../src/tasks/handlers/voice-port";
import type { Task } from "../../../src/tasks/task";
import { captureLogger } from "../../support/log-capture";

describe("the 'recording' status while the note is made", () => {
  it("the account lost on it is reported once the note is made, not left as an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const note: MadeVoice = { ogg: Buffer.alloc(1), seconds: 3, waveform: Buffer.alloc(63) };
      let kept = false;
      const maker: VoiceMaker = {
        make: async () => {
          await new Promise((r) => setTimeout(r, 30)); // the speech call takes its time
          kept = true;
          return note;
        },
        has: () => kept,
        forget: () => (kept = false),
        refused: () => {},
        get held() {
          return kept ? 1 : 0;
        },
      };
      let sends = 0;
      const d = {
        actions: {
          setTyping: () => Promise.reject(new AccountLostError("AUTH_KEY_UNREGISTERED", "signed out")),
          sendVoice: () => Promise.resolve(++sends),
          rateKeys: () => [],
        },
        clock: new FakeClock(),
        logger: captureLogger().logger,
        limits: { isLimited: () => false },
        voice: maker,
      } as unknown as ActionHandlerDeps;
      const task = {
        id: 1,
        chatId: "42",
        kind: "send",
        inDoubt: false,
        randomId: "7",
        payload: { text: "see you at six", voice: true },
      } as unknown as Task<"send">;
      await expect(sendAsVoice(d, task, { chatId: "42" }, undefined)).rejects.toBeInstanceOf(
        AccountLostError,
      );
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
      expect(sends).toBe(0);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
