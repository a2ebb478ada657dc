/**
 * The sandbox's clock (issue 29): `/advance <duration>` moves the emulated Telegram's and the
 * persona's time forward, firing what falls due on the way in order; `/now` prints the persona's
 * local time and what it is doing. The rest of the sandbox runs on the wall clock.
 */
import { describe, expect, it } from "vitest";
import { parseSandboxLine } from "../../src/sandbox/grammar";
import { sandbox } from "../support/sandbox-run";

const NOW = /^sandbox: it is \w{3} (\d{4}-\d\d-\d\d \d\d:\d\d) \(([^)]+)\); Mira is (awake|busy|asleep)/;
const minutes = (local: string) => Date.parse(`${local.replace(" ", "T")}:00Z`) / 60_000;

describe("the sandbox's clock", () => {
  it("parses /advance with its duration, /now without", () => {
    expect(parseSandboxLine("/advance 9h")).toEqual({ kind: "control", name: "advance", arg: "9h" });
    expect(parseSandboxLine("/advance")).toEqual({
      kind: "bad-control",
      name: "advance",
      problem: "/advance needs <duration>",
    });
    expect(parseSandboxLine("/now")).toEqual({ kind: "control", name: "now" });
    expect(parseSandboxLine("/now please")).toMatchObject({ kind: "bad-control" });
  });

  it("/advance fires what is due on the way, in order, and /now shows the moved time", async () => {
    const out = await sandbox(
      ["/now", "dm carol: hi", "/advance 2h", "/now", "/advance 1x", "dm carol: still there?"],
      {},
      {
        echo: true,
      },
    );
    const nows = out.filter((l) => NOW.test(l)).map((l) => NOW.exec(l)!);
    expect(nows).toHaveLength(3); // /now, the line /advance ends with, /now again
    expect(minutes(nows[1]![1]!) - minutes(nows[0]![1]!)).toBeGreaterThanOrEqual(120);
    expect(minutes(nows[1]![1]!) - minutes(nows[0]![1]!)).toBeLessThanOrEqual(121);
    expect(nows[2]![1]).toBe(nows[1]![1]);
    // The answer to carol, due seconds after her message, happened inside the advance, in order:
    // its reaction, then its reply.
    const moved = out.indexOf("sandbox: time moves 2h 00m forward…");
    const reaction = out.indexOf("[dm] * Mira reacts 👍 to #1");
    const reply = out.findIndex((l) => l.startsWith("[dm] #2 Mira: (echo, not from a model)"));
    const ended = out.findIndex((l, i) => i > moved && NOW.test(l));
    expect(moved).toBeGreaterThan(0);
    expect(reaction).toBeGreaterThan(moved);
    expect(reply).toBeGreaterThan(reaction);
    expect(ended).toBeGreaterThan(reply);
    expect(out).toContain('? /advance needs a duration from 1s to 30d, like 9h, 90m, 1d or 1h30m (got "1x")');
    // The world goes on after it.
    expect(out).toContain("[dm] #3 carol: still there?");
  });

  it("a reminder tried in seconds: asked for, listed by /intentions, sent when /advance reaches it, not before", async () => {
    const out = await sandbox(
      [
        "dm carol: remind me in 30 minutes to revise chapter 3",
        "/advance 1m",
        "owner: /intentions",
        "/advance 20m",
        "/advance 20m",
      ],
      {},
      { echo: true },
    );
    const listed = out.findIndex((l) => l.startsWith("- #1 in the private chat with Carol, due "));
    expect(listed).toBeGreaterThan(0);
    const second = out.lastIndexOf("sandbox: time moves 20m 00s forward…");
    const reminder = out.findIndex((l) =>
      /^\[dm\] #\d+ Mira: \(echo, not from a model\) as I meant to: \(echo, not from a model\) remind Carol:/.test(
        l,
      ),
    );
    expect(reminder).toBeGreaterThan(second);
    expect(out.filter((l) => l.includes("as I meant to:"))).toHaveLength(1);
  });
});
