/** `npm run eval`'s command line: --help, an unknown flag is an error quoting it, no model is one line. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const run = (args: string[], env: Record<string, string> = {}) => {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("GEMINI_") && !k.startsWith("OPENAI_")),
  );
  return spawnSync(process.execPath, ["--import", "tsx", join(__dirname, "../../scripts/eval.ts"), ...args], {
    encoding: "utf8",
    cwd: join(__dirname, "../.."),
    // Empty, not absent: the script's .env loader fills only unset variables, so a developer's own
    // key in .env must not be read (and paid for) by the tests.
    env: { ...clean, GEMINI_API_KEY: "", OPENAI_BASE_URL: "", OPENAI_MODEL: "", LLM_EMBED: "", ...env },
    timeout: 60_000,
  });
};

describe("npm run eval's command line", () => {
  it("--help says what it does and its flags; an unknown flag is an error; without a model, one line", () => {
    const help = run(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run eval /);
    expect(help.stdout).toContain("--json");
    expect(help.stdout).toContain("--fake-vectors");
    const bad = run(["--bogus"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('eval: unknown flag "--bogus"');
    const stray = run(["--scene", "g-", "--fake-vectors"]);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain("--fake-vectors is for the recall scenes");
    const none = run([], { AGENTS_DIR: "agents" });
    expect(none.status).toBe(1);
    expect(none.stderr).toBe(
      "eval: no model configured: set GEMINI_API_KEY, or OPENAI_BASE_URL and OPENAI_MODEL (docs/models.md); --scene recall- needs none\n",
    );
  }, 60_000);

  it("the recall scenes need no model: without a provider they run on the fake's vectors and say so; a recall line in the table and in --json", () => {
    const text = run(["--scene", "recall-"], { AGENTS_DIR: "agents", LLM_EMBED: "" });
    expect(text.stderr).toBe("");
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("recall scenes on fake vectors: measures the plumbing, not a model");
    expect(text.stdout).toMatch(/^ok {3}recall-pup +words: missed {2}hybrid: found /m);
    const line =
      /^recall@5 of 20 paraphrased questions among 320 memories: words (\d+) %, hybrid (\d+) %$/m.exec(
        text.stdout,
      );
    expect(line).not.toBeNull();
    expect(Number(line![2])).toBeGreaterThan(Number(line![1]));
    expect(text.stdout).toMatch(
      /^vectors: gemini:fake-embed@256 \(fake vectors: measures the plumbing, not a model\)/m,
    );
    const json = run(["--scene", "recall-pup", "--json"], { AGENTS_DIR: "agents" });
    expect(json.status).toBe(0);
    const doc = JSON.parse(json.stdout) as { recall: Record<string, unknown> };
    expect(doc.recall).toMatchObject({ fake: true, questions: 1, wordsAt5: 0, hybridAt5: 1, notEmbedded: 0 });
  }, 60_000);
});
