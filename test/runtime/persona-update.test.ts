import { describe, expect, it } from "vitest";
import { parsePersona } from "../../src/config/persona";
import { applyPersonaChange } from "../../src/runtime/persona-update";

const base = "# Agent Name\nMira\n\n# Agent Instructions\nBe nice.\n\n# Time Zone\nUTC\n";
const parse = (extra: string) => parsePersona(base + extra, { file: "Mira.md", promptDirs: [] });

describe("a persona file edited while she runs", () => {
  it("applies a new # Life at once: the next plan tells her new life", () => {
    // The runtime keeps its own unfrozen copy of the persona (runtime/agent-runtime.ts).
    const running = { ...parse("\n# Life\nLives in Riga.\n") };
    const change = applyPersonaChange(running, parse("\n# Life\nLives in Tallinn, works at a bakery.\n"));
    expect(change.applied).toEqual(["Life"]);
    expect(change.atRestart).toEqual([]);
    expect(running.life).toContain("Tallinn");
  });

  it("turns look-ups off at once with # Look Ups off, and names # Models as needing a restart", () => {
    const running = { ...parse("") };
    expect(running.lookUps.level).not.toBe("off");
    const change = applyPersonaChange(
      running,
      parse("\n# Look Ups\noff\n\n# Models\naddressing: openai:small\n"),
    );
    expect(change.applied).toEqual(["Look Ups"]);
    expect(change.atRestart).toEqual(["Models"]);
    expect(running.lookUps.level).toBe("off");
    // What needs a restart is not written into the running persona.
    expect(running.models).toEqual({});
  });
});
