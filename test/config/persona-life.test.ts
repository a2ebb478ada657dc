import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPersonas, parsePersona } from "../../src/config/persona";
import { personaWarnings } from "../../src/config/persona-warnings";

describe("a persona's own life", () => {
  it("a persona without a # Life section loads, with one warning naming the file and the field", () => {
    const p = parsePersona("# Agent Name\nAlex\n\n# Agent Instructions\nBe nice.\n", {
      file: "agents/Alex.md",
      promptDirs: [],
    });
    expect(p.life).toBeUndefined();
    expect(personaWarnings(p)).toEqual([
      expect.stringMatching(/^agents\/Alex\.md: no "# Life" section: Alex has no life/),
    ]);
    const lived = parsePersona(
      "# Agent Name\nAlex\n\n# Agent Instructions\nBe nice.\n\n# life\nA flat in Porto.\n",
      {
        file: "agents/Alex.md",
        promptDirs: [],
      },
    );
    expect(lived.life).toBe("A flat in Porto.");
    expect(personaWarnings(lived)).toEqual([]);
  });

  it("the shipped personas have a full life, a time zone, a sleep window, and one stance on what they are", () => {
    const personas = loadPersonas(join(__dirname, "../../agents"));
    expect(personas.length).toBeGreaterThan(0);
    for (const p of personas) {
      expect(personaWarnings(p)).toEqual([]);
      for (const part of ["Home", "Work", "Likes", "People", "Routines"])
        expect(p.life).toContain(`${part}:`);
      expect(p.timeZone).not.toBe("UTC");
      expect(p.rhythm.sleep).toBeDefined();
      // Nothing in her own text contradicts the rules' stance (a character an AI plays).
      expect(p.instructions).not.toMatch(/as an AI|you are a person|a .*person who/i);
      expect(p.whenAskedIfAi).toMatch(/AI/);
    }
  });
});
