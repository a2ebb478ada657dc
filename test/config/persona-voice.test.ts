import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { parsePersona } from "../../src/config/persona";

const MINIMAL = "# Agent Name\nMira\n\n# Agent Instructions\nBe nice.\n";
const parse = (extra: string) =>
  parsePersona(`${MINIMAL}${extra}`, { file: "agents/Mira.md", promptDirs: [] });

describe("# Voice", () => {
  it("is off unless the file says so: existing personas keep writing", () => {
    expect(parse("").voice).toEqual({ mode: "never", voiceName: "Kore", maxSeconds: 30 });
  });

  it("reads when she speaks, the voice and the longest note", () => {
    expect(parse("# Voice\n- speaks: when spoken to\n- voice: Puck\n- max seconds: 20\n").voice).toEqual({
      mode: "spoken-to",
      voiceName: "Puck",
      maxSeconds: 20,
    });
    expect(parse("# Voice\nSpeaks: When  it suits\n").voice.mode).toBe("suits");
  });

  it("names the line that is wrong", () => {
    const bad = (text: string) => {
      try {
        parse(`# Voice\n${text}\n`);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error("no error");
    };
    expect(bad("speaks: sometimes")).toMatch(
      /speaks: unknown value "sometimes".*never, when spoken to, when it suits/,
    );
    expect(bad("max seconds: 500")).toMatch(/max seconds.*from 1 to 120/);
    expect(bad("voice: two words")).toMatch(/not a voice name/);
    expect(bad("loud: yes")).toMatch(/bad line "loud: yes"/);
    expect(bad("voice: Kore\nvoice: Puck")).toMatch(/"voice" is given twice/);
  });
});
