/**
 * A persona file edited while the persona runs: a valid change applies at once for what can
 * change live (a new alias is answered to, new instructions reach the next plan) and names what
 * needs a restart; a broken file leaves the persona on its last good version with one error line
 * naming the file and the field; a deleted file is said, and the persona keeps running.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PersonaWatch } from "../../src/app/persona-watch";
import { isPlanRequest, type GenerateBody } from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

let h: Harness | undefined;
let watch: PersonaWatch | undefined;
afterEach(async () => {
  watch?.stop();
  await h?.close();
  h = watch = undefined;
});

describe("a persona file edited while running", () => {
  it("applies a new alias and instructions live, keeps the last good version of a broken file, and says what needs a restart", async () => {
    const agents = tempDir();
    mkdirSync(agents, { recursive: true });
    const file = join(agents, "Mira.md");
    writeFileSync(file, TEST_PERSONA);
    h = await Harness.start();
    const hh = h;
    hh.gemini.respondWith((body: GenerateBody) =>
      isPlanRequest(body) ? plan({ kind: "send", text: "here" }) : { json: { tasks: [] } },
    );
    watch = new PersonaWatch({ dir: agents, logger: hh.log.logger });
    watch.add({ persona: { ...hh.persona, file }, updatePersona: (next) => hh.runtime.updatePersona(next) });
    const said = (re: RegExp) => hh.log.lines().filter((l) => re.test(String(l.msg)));

    // Not a name of hers yet: stored, not answered.
    await hh.emu.post({ chat: hh.group, from: hh.bob, text: "Mimi, are you there?" });
    await hh.pass(20_000);
    expect(hh.sent(hh.group)).toEqual([]);

    writeFileSync(
      file,
      TEST_PERSONA.replace("Mirochka", "Mirochka\nMimi")
        .replace("a friendly member of this chat.", "a friendly member of this chat who loves tea.")
        .replace("# Read Delay\n2", "# Read Delay\n5"),
    );
    await until(() => said(/Mira\.md changed/).length > 0);
    expect(String(said(/Mira\.md changed/)[0]!.msg)).toMatch(
      /Mira\.md changed; applied now: Agent Instructions, Aliases; at the next start \(a restart applies it\): Read Delay$/,
    );
    const before = hh.gemini.requests.length;
    await hh.emu.post({ chat: hh.group, from: hh.bob, text: "Mimi, tea or coffee?" });
    await hh.pass(20_000);
    expect(hh.sent(hh.group).map((m) => m.text)).toEqual(["here"]);
    const prompt = JSON.stringify(hh.gemini.requests.slice(before).map((r) => r.body));
    expect(prompt).toContain("who loves tea");

    // Broken: one error line naming the file and the field; she goes on as she was.
    writeFileSync(
      file,
      TEST_PERSONA.replace("Mirochka", "Mirochka\nMimi").replace(
        "# Typing Speed\n10",
        "# Typing Speed\nfast",
      ),
    );
    await until(() => said(/keeps running on the last good version/).length > 0);
    const broken = said(/keeps running on the last good version/);
    expect(broken).toHaveLength(1);
    expect(Number(broken[0]!.level)).toBe(50);
    expect(String(broken[0]!.msg)).toMatch(
      /Mira\.md: field "Typing Speed": .*; Mira keeps running on the last good version$/,
    );
    await hh.emu.post({ chat: hh.group, from: hh.alice, text: "Mimi, still with us?" });
    await hh.pass(20_000);
    expect(hh.sent(hh.group)).toHaveLength(2);

    // Deleted: said; she keeps running.
    rmSync(file);
    await until(() => said(/was deleted/).length > 0);
    expect(String(said(/was deleted/)[0]!.msg)).toMatch(/Mira\.md was deleted; Mira keeps running as it was/);
  }, 30_000);
});
