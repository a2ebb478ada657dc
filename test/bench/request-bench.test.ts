/**
 * The request workload's figures: the schema measured before (every kind, `think` included, as
 * sent before the schema followed the chat) and after (a group without sticker sets).
 */
import { describe, expect, it } from "vitest";
import { benchRequest } from "../../bench/request-bench";

describe("the planning request's anatomy", () => {
  it("reports the schema's tokens before and after it followed the chat: a group without sticker sets gets a much smaller one", () => {
    const f = benchRequest();
    expect(f.schemaTokens).toBeGreaterThan(0);
    expect(f.schemaTokensBefore).toBeGreaterThan(f.schemaTokens);
    // sticker, block, unblock and think are gone: more than a quarter of the schema.
    expect(f.schemaTokens / f.schemaTokensBefore).toBeLessThan(0.75);
    expect(f.messagesShown).toBe(17);
  });
});
