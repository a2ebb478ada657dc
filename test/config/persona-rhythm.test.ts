import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { parsePersona } from "../../src/config/persona";
import { lookedAt, rhythmAt, stretchAt } from "../../src/config/persona-rhythm";

const MINIMAL = "# Agent Name\nMira\n\n# Agent Instructions\nBe nice.\n";
const parse = (extra: string) => parsePersona(MINIMAL + extra, { file: "agents/Test.md", promptDirs: [] });
const at = (iso: string) => Date.parse(iso);

function problem(extra: string): string {
  try {
    parse(extra);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("# Sleep and # Busy", () => {
  it("parse ranges (one crossing midnight) and responsiveness; none means never asleep", () => {
    const p = parse(
      "# Time Zone\nEurope/Berlin\n# Sleep\n23:30-07:30\n# Busy\n- 09:00-12:00 slow\n- 14:00–17:00 very slow\n- 18:00-19:00\n",
    );
    expect(p.rhythm).toEqual({
      sleep: { start: 23 * 60 + 30, end: 7 * 60 + 30 },
      busy: [
        { start: 540, end: 720, level: "slow" },
        { start: 840, end: 1020, level: "very slow" },
        { start: 1080, end: 1140, level: "slow" },
      ],
    });
    expect(parse("").rhythm).toEqual({ busy: [] });
    expect(rhythmAt(parse("").rhythm, "UTC", at("2026-11-22T03:00:00Z"))).toEqual({ state: "awake" });
  });

  it("bad values name the field and what was expected", () => {
    expect(problem("# Sleep\n11pm-7am\n")).toContain(
      'field "Sleep": bad time range "11pm-7am" (expected HH:MM-HH:MM in the persona\'s time zone, e.g. 23:30-07:30)',
    );
    expect(problem("# Sleep\n07:00-07:00\n")).toContain("is empty");
    expect(problem("# Sleep\n25:00-07:00\n")).toContain("bad time range");
    expect(problem("# Busy\n09:00-17:00 sleepy\n")).toContain(
      'field "Busy": unknown responsiveness "sleepy" in "09:00-17:00 sleepy" (expected slow or very slow',
    );
    expect(problem("# Intentions Per Chat\n50\n")).toContain('field "Intentions Per Chat"');
    expect(problem("# Intention Grace\n6h\n")).toContain('field "Intention Grace"');
  });

  it("says what the persona does at an instant, in its time zone, and until when", () => {
    const p = parse("# Time Zone\nEurope/Berlin\n# Sleep\n23:30-07:30\n# Busy\n09:00-17:00 slow\n");
    const r = p.rhythm;
    const tz = p.timeZone;
    // 2026-11-23 is a Monday; Berlin is UTC+1 in November.
    expect(rhythmAt(r, tz, at("2026-11-23T01:00:00Z"))).toEqual({
      state: "asleep",
      until: at("2026-11-23T06:30:00Z"),
    });
    expect(rhythmAt(r, tz, at("2026-11-22T22:40:00Z"))).toEqual({
      state: "asleep",
      until: at("2026-11-23T06:30:00Z"),
    });
    expect(rhythmAt(r, tz, at("2026-11-23T07:00:00Z"))).toEqual({
      state: "awake",
      until: at("2026-11-23T08:00:00Z"),
      sleepsAt: at("2026-11-23T22:30:00Z"),
    });
    expect(rhythmAt(r, tz, at("2026-11-23T10:00:00Z"))).toEqual({
      state: "busy",
      level: "slow",
      until: at("2026-11-23T16:00:00Z"),
      sleepsAt: at("2026-11-23T22:30:00Z"),
    });
    expect(stretchAt(r, tz, at("2026-11-23T10:00:00Z"))).toBe(3);
    expect(stretchAt(r, tz, at("2026-11-23T17:00:00Z"))).toBe(1);
    // A message at 02:00 local is first looked at on waking; one at noon at once.
    expect(lookedAt(r, tz, at("2026-11-23T01:00:00Z"))).toBe(at("2026-11-23T06:30:00Z"));
    expect(lookedAt(r, tz, at("2026-11-23T11:00:00Z"))).toBe(at("2026-11-23T11:00:00Z"));
  });

  it("follows daylight saving: 07:30 is 05:30 UTC in Berlin's summer", () => {
    const r = parse("# Time Zone\nEurope/Berlin\n# Sleep\n23:30-07:30\n").rhythm;
    expect(rhythmAt(r, "Europe/Berlin", at("2026-07-01T01:00:00Z")).until).toBe(at("2026-07-01T05:30:00Z"));
  });

  it("reads the intention limits with defaults", () => {
    expect(
      parse("# Intentions Per Chat\n5\n# Proactive Per Day\n0\n# Intention Grace\n1.5\n").intentions,
    ).toEqual({
      perChat: 5,
      perDay: 0,
      graceHours: 1.5,
    });
  });
});
