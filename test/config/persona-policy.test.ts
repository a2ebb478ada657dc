import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { parsePersona } from "../../src/config/persona";
import { personCap, strangerTokenCap } from "../../src/config/persona-policy";

const BASE = "# Agent Name\nMira\n\n# Agent Instructions\nBe nice.\n";
const parse = (extra: string) =>
  parsePersona(`${BASE}\n${extra}`, { file: "agents/Test.md", promptDirs: [] });

function problem(extra: string): { field: string | undefined; message: string } {
  try {
    parse(extra);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return { field: (e as ConfigError).field, message: (e as ConfigError).message };
  }
  throw new Error("expected a ConfigError");
}

describe("persona policy fields", () => {
  it("shares by default: one person half of a group's answers per hour, strangers' DMs a fifth of the day's tokens", () => {
    const p = parse("");
    expect(p.policy).toMatchObject({
      answersPerHour: 20,
      personShare: 50,
      dailyTokenBudget: 2_000_000,
      strangerTokenShare: 20,
    });
    expect(personCap(p.policy)).toBe(10);
    expect(strangerTokenCap(p.policy)).toBe(400_000);
    // A share never rounds a person down to nothing.
    expect(personCap(parse("# Answers Per Hour\n1\n# Person Share\n10").policy)).toBe(1);
  });

  it("reads every policy field", () => {
    const p = parse(
      [
        "# DM Policy",
        "Allowlist",
        "# Allowed Users",
        "- 5000000001",
        "- @Alice_B",
        "https://t.me/bobstone",
        "# Allowed Groups",
        "-1001500000001",
        "-4000001",
        "@book_club",
        "# Answers Per Hour",
        "5",
        "# DM Answers Per Hour",
        "90",
        "# Person Share",
        "40%",
        "# Daily Token Budget",
        "250_000",
        "# Stranger Token Share",
        "0",
        "# Person Token Share",
        "10%",
        "# Chat Token Share",
        "30",
        "# Contacts Reserve",
        "40",
        "# Takeover Silence",
        "0",
      ].join("\n"),
    );
    expect(p.policy).toEqual({
      dm: "allowlist",
      allowedUsers: [{ id: "5000000001" }, { username: "alice_b" }, { username: "bobstone" }],
      allowedGroups: [{ id: "-1001500000001" }, { id: "-4000001" }, { username: "book_club" }],
      answersPerHour: 5,
      dmAnswersPerHour: 90,
      personShare: 40,
      dailyTokenBudget: 250_000,
      strangerTokenShare: 0,
      personTokenShare: 10,
      chatTokenShare: 30,
      contactsReserve: 40,
      takeoverSilenceMin: 0,
    });
  });

  it("names the field and the bad value", () => {
    expect(problem("# DM Policy\neveryone")).toMatchObject({
      field: "DM Policy",
      message: expect.stringContaining("expected one of: open, contacts, allowlist, off"),
    });
    expect(problem("# Allowed Users\nalice")).toMatchObject({
      field: "Allowed Users",
      message: expect.stringContaining('"alice"'),
    });
    expect(problem("# Allowed Groups\n1500000001")).toMatchObject({
      field: "Allowed Groups",
      message: expect.stringContaining("-100123"),
    });
    expect(problem("# Answers Per Hour\n0")).toMatchObject({ field: "Answers Per Hour" });
    expect(problem("# Answers Per Hour\n2.5")).toMatchObject({
      field: "Answers Per Hour",
      message: expect.stringContaining("whole number"),
    });
    expect(problem("# Daily Token Budget\nlots")).toMatchObject({ field: "Daily Token Budget" });
    expect(problem("# Takeover Silence\n-5")).toMatchObject({ field: "Takeover Silence" });
    expect(problem("# Person Share\n0")).toMatchObject({
      field: "Person Share",
      message: expect.stringContaining("percent from 1 to 100"),
    });
    expect(problem("# Stranger Token Share\n120%")).toMatchObject({
      field: "Stranger Token Share",
      message: expect.stringContaining("percent from 0 to 100"),
    });
    expect(problem("# Stranger Token Share\n12.5")).toMatchObject({
      field: "Stranger Token Share",
      message: expect.stringContaining("whole number"),
    });
    expect(problem("# DM Policy\nallowlist")).toMatchObject({
      field: "Allowed Users",
      message: expect.stringContaining("no user is listed"),
    });
  });

  it("every numeric field takes the same forms, and an error quotes the value as written", () => {
    for (const budget of ["2_000_000", "2,000,000", "2 000 000", "2000000"]) {
      expect(parse(`# Daily Token Budget\n${budget}\n`).policy.dailyTokenBudget).toBe(2_000_000);
    }
    // The same forms in fields that are not policy fields.
    expect(parse("# Read Delay\n1.5\n").readDelaySec).toBe(1.5);
    expect(parse("# Answers Per Hour\n1_000\n").policy.answersPerHour).toBe(1000);
    expect(parse("# Takeover Silence\n1,440\n").policy.takeoverSilenceMin).toBe(1440);
    expect(problem("# Daily Token Budget\n2_000_00")).toMatchObject({
      field: "Daily Token Budget",
      message: expect.stringContaining(
        'bad value "2_000_00" (expected a whole number of tokens from 1,000 to 1,000,000,000; digits are grouped in threes',
      ),
    });
    expect(problem("# Read Delay\n1,5")).toMatchObject({
      field: "Read Delay",
      message: expect.stringContaining('bad value "1,5"'),
    });
    expect(problem("# Daily Token Budget\n3_000_000_000").message).toContain('"3_000_000_000"');
  });
});
