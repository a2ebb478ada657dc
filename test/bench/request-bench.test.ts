/**
 * The request workload's figures: the fixed part of a planning request (answer schema and system
 * instruction) per chat kind, now and as it was sent before it was made lean.
 */
import { describe, expect, it } from "vitest";
import { benchRequest } from "../../bench/request-bench";

describe("the planning request's anatomy", () => {
  it("reports schema and instruction tokens per chat kind, before and after: the group schema within 350 tokens and every fixed prefix no larger than before", () => {
    const f = benchRequest();
    expect(f.fixed.group.schema).toBe(f.schemaTokens);
    expect(f.fixed.group.schema).toBeLessThanOrEqual(350);
    for (const x of Object.values(f.fixed)) {
      expect(x.schema).toBeLessThan(x.schemaBefore);
      expect(x.schema + x.instruction).toBeLessThanOrEqual(x.schemaBefore + x.instructionBefore);
    }
    expect(f.messagesShown).toBe(17);
  });
});
