import { describe, expect, it } from "vitest";
import { benchEmbedCallsPerPlan, benchRecallLatency, benchRecallQuality } from "../../bench/meaning-bench";
import { fork } from "node:child_process";

describe("memory by meaning's bench workloads", () => {
  it("recall@5 of the paraphrased questions is higher hybrid than by words alone (the fakes' vectors)", async () => {
    const q = await benchRecallQuality();
    expect(q.questions).toBe(20);
    expect(q.hybridRecallAt5).toBeGreaterThan(q.ftsRecallAt5);
    expect(q.hybridRecallAt5).toBeGreaterThanOrEqual(0.9);
  });

  it("a plan embeds its query once, and no message that is not for her is embedded", async () => {
    const r = await benchEmbedCallsPerPlan({ plans: 3, chatter: 4 });
    expect(r).toMatchObject({ plans: 3, queryCalls: 3, queryCallsPerPlan: 1, chatterEmbedded: 0 });
  });

  it("the latency workload measures the three queries at a given size", () => {
    const { sizes } = benchRecallLatency({ sizes: [300], queries: 3 });
    expect(sizes[0]).toMatchObject({ memories: 300, dims: 256 });
    expect(sizes[0]!.nearest.medianMs).toBeGreaterThan(0);
  });

  it("runs in its own process as `npm run bench` runs it (a synchronous workload answers too)", async () => {
    const child = fork("bench/bench-child.ts", ["recallLatency", JSON.stringify({ sizes: [200] })], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    const answer = await new Promise<unknown>((resolve, reject) => {
      child.once("message", resolve);
      child.once("exit", (code) => reject(new Error(`bench child exited with ${code} and no answer`)));
    });
    expect(answer).toMatchObject({ sizes: [expect.objectContaining({ memories: 200 })] });
  }, 120_000);
});
