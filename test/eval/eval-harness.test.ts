/**
 * The scorecard's harness (not a model): every scene runs through the real pipeline on the
 * emulator with the Gemini fake as the model. Answering each scene with its `ideal` plan must meet
 * every label; a stand-in that always answers must score 0.5 balanced accuracy and be caught
 * leaking, copying Markdown and sending too many messages.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePersona } from "../../src/config/persona";
import { readEnv } from "../../src/config/env";
import { DEFAULT_PRICES } from "../../src/llm/prices";
import { createLlm } from "../../src/llm/providers";
import { runEval, sceneLine, totalsText } from "../../src/eval/eval";
import { SCENES, type Scene } from "../../src/eval/scenes";
import { GeminiFake, lastUserText, requestPurpose } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";

const persona = parsePersona(readFileSync(join(__dirname, "../../agents/Mira.md"), "utf8"), {
  file: "agents/Mira.md",
  promptDirs: [],
});
let gemini: GeminiFake;
beforeAll(async () => {
  gemini = await GeminiFake.start();
});
afterAll(async () => gemini.close());

function model() {
  const log = captureLogger("error");
  const { llm } = createLlm({
    env: { ...readEnv({}), GEMINI_API_KEY: "k", GOOGLE_GEMINI_BASE_URL: gemini.baseUrl },
    logger: log.logger,
  });
  return { llm, logger: log.logger };
}

/** Ids of the messages in the newest request, oldest first. */
const idsIn = (text: string) => [...text.matchAll(/⟦#(\d+) /gu)].map((m) => Number(m[1]));

describe("npm run eval's harness", () => {
  it("≥ 40 scenes, unique ids, both group and DM, every kind of label", () => {
    expect(SCENES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SCENES.map((s) => s.id)).size).toBe(SCENES.length);
    const e = SCENES.map((s) => s.expect);
    expect(e.some((x) => x.speak === false) && e.some((x) => x.speak === true)).toBe(true);
    for (const k of ["laugh", "language", "secret", "never", "must", "plain", "maxMessages"] as const)
      expect(e.some((x) => x[k] !== undefined)).toBe(true);
  });

  it("a stand-in answering every scene's ideal plan meets every label", { timeout: 60_000 }, async () => {
    let scene: Scene | undefined;
    gemini.respondWith((body) => {
      const purpose = requestPurpose(body);
      const speaks = scene!.expect.speak !== false || scene!.expect.laugh === true;
      if (purpose === "address")
        return {
          json: {
            reason: "scripted",
            addressed: speaks,
            confidence: speaks ? 0.95 : 0.05,
            wanna_interject: false,
          },
        };
      if (purpose !== "plan") return { json: {} };
      const text = lastUserText(body);
      // The setup's DM is answered with silence; the scene's own chat with the ideal plan.
      if (scene!.setup && !text.includes("Friends")) return { json: { tasks: [] } };
      const ids = idsIn(text).slice(-scene!.lines.length);
      return { json: { tasks: scene!.ideal(ids) } };
    });
    const { llm, logger } = model();
    const r = await runEval({
      persona,
      llm,
      logger,
      prices: DEFAULT_PRICES,
      beforeScene: (s) => (scene = s),
    });
    const failed = r.scenes.filter((v) => !v.ok).map(sceneLine);
    // A finding of the scorecard, not of a model: "Miraさん、…？" neither names her (no word boundary
    // before さん) nor asks the room (a full-width ？), so smart mode's prefilter never asks the model.
    expect(failed).toEqual([expect.stringMatching(/^FAIL g-ja-named .*stayed silent/)]);
    expect(r.totals).toMatchObject({
      passed: SCENES.length - 1,
      speakPrecision: 1,
      languageMatch: 1,
      leaks: 0,
      markdown: 0,
    });
    expect(r.totals.tokens).toBeGreaterThan(0);
    expect(r.totals.speakRecall).toBeLessThan(1);
    expect(totalsText(r)).toContain(`scenes met their label: ${SCENES.length - 1}/${SCENES.length}`);
  });

  it(
    "a stand-in that always answers, in Markdown, three times, telling secrets, scores what it did",
    { timeout: 60_000 },
    async () => {
      let scene: Scene | undefined;
      gemini.respondWith((body) => {
        if (requestPurpose(body) === "address")
          return {
            json: {
              reason: "x",
              addressed: true,
              confidence: 1,
              wanna_interject: false,
              interject: 0,
              is_lightweight: false,
              message_id: idsIn(lastUserText(body)).at(-1),
            },
          };
        if (requestPurpose(body) !== "plan") return { json: {} };
        const secret = scene!.expect.secret?.[0] ?? "";
        return {
          json: {
            tasks: [
              { kind: "send", text: `**sure** ${secret}` },
              { kind: "send", text: "- point two" },
              { kind: "send", text: "and three" },
            ],
          },
        };
      });
      const { llm, logger } = model();
      const picked = SCENES.filter((s) =>
        ["g-named-question", "g-about-her", "g-told-her", "leak-job", "g-one-not-three"].includes(s.id),
      );
      const r = await runEval({
        persona,
        llm,
        logger,
        prices: DEFAULT_PRICES,
        scenes: picked,
        beforeScene: (s) => (scene = s),
      });
      expect(r.totals.balancedAccuracy).toBe(0.5);
      expect(r.totals.speakPrecision).toBeCloseTo(3 / 5);
      expect(r.totals.leaks).toBe(1);
      expect(r.totals.markdown).toBe(5);
      const one = r.scenes.find((v) => v.id === "g-one-not-three")!;
      expect(one.problems).toContain("3 messages (at most 1)");
      expect(r.scenes.find((v) => v.id === "g-about-her")!.problems).toContain("spoke");
    },
  );
});
