import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { loadPersonas, parsePersona, type Persona } from "../../src/config/persona";

const MINIMAL = "# Agent Name\nMira\n\n# Agent Instructions\nBe nice.\n";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "persona-test-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(path: string, text: string): string {
  const full = join(root, path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, text);
  return full;
}

const parse = (text: string, promptDirs: string[] = []): Persona =>
  parsePersona(text, { file: "agents/Test.md", promptDirs });

/** The ConfigError about one persona file thrown by `fn` (fails the test when it throws something else). */
function fileError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

/** The ConfigError about the persona directory thrown by `fn`. */
function loadError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("parsePersona", () => {
  it("parses a minimal file with defaults", () => {
    const p = parse(MINIMAL);
    expect(p).toEqual({
      name: "Mira",
      instructions: "Be nice.",
      rolePrompts: [],
      aliases: [],
      groupMode: "strict",
      addressConfidence: 0.6,
      interjectThreshold: 0.7,
      lookUps: { level: "contacts", chats: [], perDay: 40, perPerson: 10, perChat: 20 },
      voice: { mode: "never", voiceName: "Kore", maxSeconds: 30 },
      interjectionsPerHour: 2,
      stickerSets: [],
      stickers: [],
      startTypingDelaySec: 1.5,
      typingSpeedCps: 12,
      readDelaySec: 2,
      quietWindowSec: 3,
      historyWindow: 16,
      threadWindow: 8,
      focusedWindow: 8,
      timeZone: p.timeZone,
      policy: {
        dm: "open",
        allowedUsers: [],
        allowedGroups: [],
        answersPerHour: 20,
        dmAnswersPerHour: 60,
        personShare: 50,
        dailyTokenBudget: 2_000_000,
        strangerTokenShare: 20,
        personTokenShare: 25,
        chatTokenShare: 50,
        contactsReserve: 25,
        takeoverSilenceMin: 30,
      },
      rhythm: { busy: [] },
      intentions: { perChat: 3, perDay: 5, graceHours: 6 },
      models: {},
      file: "agents/Test.md",
    });
    expect(p.phone).toBeUndefined();
    expect("phone" in p).toBe(false);
  });

  it("parses every field", () => {
    const p = parse(
      [
        "# Agent Name",
        "Mira",
        "# Agent Phone",
        "+1 (555) 123-4567",
        "# Agent Instructions",
        "Line one.",
        "",
        "## A subheading stays in the value",
        "Line three.",
        "# Aliases",
        "- Mira",
        "Mirochka",
        "",
        "mira",
        "# Group Mode",
        "Strict",
        "# Agent Sticker Sets",
        "HotCherry",
        "https://t.me/addstickers/Animals_by_bot",
        "# Start Typing Delay",
        "0.5",
        "# Typing Speed",
        "20",
        "# Read Delay",
        "0",
      ].join("\n"),
    );
    expect(p.name).toBe("Mira");
    expect(p.phone).toBe("+15551234567");
    expect(p.instructions).toBe("Line one.\n\n## A subheading stays in the value\nLine three.");
    expect(p.aliases).toEqual(["Mira", "Mirochka"]);
    expect(p.groupMode).toBe("strict");
    expect(p.stickerSets).toEqual(["HotCherry", "Animals_by_bot"]);
    expect(p.startTypingDelaySec).toBe(0.5);
    expect(p.typingSpeedCps).toBe(20);
    expect(p.readDelaySec).toBe(0);
  });

  it("matches headings case-insensitively and trimmed, with CRLF and a BOM", () => {
    const p = parse(
      "\uFEFF#   agent   NAME  \r\nMira\r\n# AGENT INSTRUCTIONS #\r\nhi\r\n#hashtag is text\r\n",
    );
    expect(p.name).toBe("Mira");
    expect(p.instructions).toBe("hi\n#hashtag is text");
  });

  it("does not treat # lines inside code fences as headings", () => {
    const p = parse(MINIMAL + "```sh\n# not a heading\n```\n");
    expect(p.instructions).toBe("Be nice.\n```sh\n# not a heading\n```");
  });

  it("treats an empty optional field as its default", () => {
    const p = parse(MINIMAL + "# Group Mode\n\n# Typing Speed\n   \n# Aliases\n");
    expect(p.groupMode).toBe("strict");
    expect(p.typingSpeedCps).toBe(12);
    expect(p.aliases).toEqual([]);
  });

  it("accepts the numeric bounds", () => {
    const p = parse(
      MINIMAL + "# Start Typing Delay\n60\n# Typing Speed\n1\n# Read Delay\n600\n# Quiet Window\n60\n",
    );
    expect([p.startTypingDelaySec, p.typingSpeedCps, p.readDelaySec, p.quietWindowSec]).toEqual([
      60, 1, 600, 60,
    ]);
    expect(parse(MINIMAL + "# Quiet Window\n0\n").quietWindowSec).toBe(0);
    expect(parse(MINIMAL + "# quiet window\n2.5\n").quietWindowSec).toBe(2.5);
  });

  it("reads the window sizes: whole numbers of messages, 16, 8 and 8 by default; thread and focused may be 0", () => {
    expect([parse(MINIMAL).historyWindow, parse(MINIMAL).threadWindow, parse(MINIMAL).focusedWindow]).toEqual(
      [16, 8, 8],
    );
    const p = parse(MINIMAL + "# History Window\n40\n# Thread Window\n0\n# Focused Window\n1\n");
    expect([p.historyWindow, p.threadWindow, p.focusedWindow]).toEqual([40, 0, 1]);
    expect(parse(MINIMAL + "# Focused Window\n50\n").focusedWindow).toBe(50);
  });

  it("reads # When Asked If AI: one line, optional (the prompt's default stands without it)", () => {
    expect(parse(MINIMAL).whenAskedIfAi).toBeUndefined();
    expect(parse(`${MINIMAL}# When Asked If AI\nsay you are an AI persona Alex runs\n`).whenAskedIfAi).toBe(
      "say you are an AI persona Alex runs",
    );
    const two = fileError(() => parse(`${MINIMAL}# When Asked If AI\nsay so\nand wink\n`));
    expect(two.field).toBe("When Asked If AI");
    expect(two.message).toMatch(/expected one line/);
    const long = fileError(() => parse(`${MINIMAL}# When Asked If AI\n${"x".repeat(301)}\n`));
    expect(long.message).toMatch(/at most 300 characters/);
  });

  it("reads the time zone: an IANA name, by default the machine's", () => {
    expect(parse(MINIMAL + "# Time Zone\nEurope/Berlin\n").timeZone).toBe("Europe/Berlin");
    expect(parse(MINIMAL + "# Time Zone\nutc\n").timeZone).toBe("UTC");
    expect(parse(MINIMAL).timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC");
    const e = fileError(() => parse(MINIMAL + "# Time Zone\nMars/Olympus\n"));
    expect(e.field).toBe("Time Zone");
    expect(e.problem).toContain('"Mars/Olympus"');
  });

  describe("errors", () => {
    it("formats the message with file, field and problem", () => {
      const e = fileError(() => parse(MINIMAL + "# Group Mode\nloud\n"));
      expect(e.message).toBe(
        'agents/Test.md: field "Group Mode": unknown value "loud" (expected strict, smart or talkative)',
      );
      expect(e.file).toBe("agents/Test.md");
      expect(e.field).toBe("Group Mode");
      expect(e.problem).toBe('unknown value "loud" (expected strict, smart or talkative)');
    });

    it.each([
      ["smart", "smart"],
      ["Talkative", "talkative"],
      ["STRICT", "strict"],
    ])("reads group mode %s", (raw, mode) => {
      expect(parse(MINIMAL + `# Group Mode\n${raw}\n`).groupMode).toBe(mode);
    });

    it("reads the addressing settings, with defaults, and rejects values out of range", () => {
      expect(parse(MINIMAL)).toMatchObject({
        addressConfidence: 0.6,
        interjectThreshold: 0.7,
        interjectionsPerHour: 2,
      });
      const p = parse(
        MINIMAL + "# Address Confidence\n0.8\n# Interject Threshold\n.5\n# Interjections Per Hour\n4\n",
      );
      expect(p).toMatchObject({ addressConfidence: 0.8, interjectThreshold: 0.5, interjectionsPerHour: 4 });
      const e = fileError(() => parse(MINIMAL + "# Address Confidence\n1.5\n"));
      expect(e.message).toBe(
        'agents/Test.md: field "Address Confidence": bad value "1.5" (expected a number of confidence (0-1) from 0 to 1)',
      );
    });

    it("rejects an unknown heading", () => {
      const e = fileError(() => parse(MINIMAL + "# Favourite Colour\nblue\n"));
      expect(e.field).toBe("Favourite Colour");
      expect(e.message).toMatch(/^agents\/Test\.md: field "Favourite Colour": unknown heading on line 6/);
      expect(e.message).toContain("Agent Name");
    });

    it("rejects a duplicate heading, even in another case", () => {
      const e = fileError(() => parse(MINIMAL + "# agent name\nOther\n"));
      expect(e.field).toBe("Agent Name");
      expect(e.problem).toBe("heading appears more than once (lines 1 and 6)");
    });

    it.each(["Agent Name", "Agent Instructions"])("rejects a missing %s", (field) => {
      const text = field === "Agent Name" ? "# Agent Instructions\nhi\n" : "# Agent Name\nMira\n";
      const e = fileError(() => parse(text));
      expect(e.field).toBe(field);
      expect(e.problem).toBe("required field is missing");
    });

    it.each(["Agent Name", "Agent Instructions"])("rejects an empty %s", (field) => {
      const text =
        field === "Agent Name"
          ? "# Agent Name\n  \n# Agent Instructions\nhi\n"
          : "# Agent Name\nMira\n# Agent Instructions\n\n";
      const e = fileError(() => parse(text));
      expect(e.field).toBe(field);
      expect(e.problem).toBe("required field is empty");
    });

    it("rejects an empty file, naming both required fields at once", () => {
      const e = fileError(() => parse(""));
      expect(e.errors.map((x) => x.field)).toEqual(["Agent Name", "Agent Instructions"]);
      expect(e.message).toMatch(/^agents\/Test\.md: 2 problems:\n/);
    });

    it("reports every problem of a file at once, with the heading a typo meant", () => {
      const e = fileError(() =>
        parse(
          "# Agnet Name\nMira\n\n# Agent Instructions\nBe kind.\n\n# Typing Speed\nfast\n\n# Group mod\nsmart\n\n# Favourite Colour\nblue\n",
        ),
      );
      expect(e.errors.map((x) => x.field)).toEqual([
        "Agnet Name",
        "Group mod",
        "Favourite Colour",
        "Agent Name",
        "Typing Speed",
      ]);
      expect(e.message).toContain(
        'field "Agnet Name": unknown heading on line 1 (did you mean "# Agent Name"?)',
      );
      expect(e.message).toContain(
        'field "Group mod": unknown heading on line 10 (did you mean "# Group Mode"?)',
      );
      // Nothing close: the fields are listed instead.
      expect(e.message).toMatch(
        /field "Favourite Colour": unknown heading on line 13 \(expected one of: Agent Name, /,
      );
      expect(e.message).toContain('field "Agent Name": required field is missing');
      expect(e.message).toContain('field "Typing Speed"');
    });

    it("rejects text before the first heading", () => {
      const e = fileError(() => parse("\n\nHello there\n" + MINIMAL));
      expect(e.field).toBeUndefined();
      expect(e.message).toMatch(/^agents\/Test\.md: text before the first heading \(line 3\)/);
      expect(e.message).toContain("(line 3)");
    });

    it("allows blank lines before the first heading", () => {
      expect(parse("\n  \n" + MINIMAL).name).toBe("Mira");
    });

    it("rejects a multi-line Agent Name", () => {
      const e = fileError(() => parse("# Agent Name\nMira\nSecond\n# Agent Instructions\nhi\n"));
      expect(e.field).toBe("Agent Name");
      expect(e.problem).toMatch(/one line/);
    });

    it.each(["../evil", "a/b", ".hidden", "x".repeat(65)])("rejects the agent name %s", (name) => {
      expect(fileError(() => parse(`# Agent Name\n${name}\n# Agent Instructions\nhi\n`)).field).toBe(
        "Agent Name",
      );
    });

    it.each(["12345", "+12ab34", "+1", "phone", "+1234567890123456"])("rejects the phone %s", (phone) => {
      const e = fileError(() => parse(MINIMAL + `# Agent Phone\n${phone}\n`));
      expect(e.field).toBe("Agent Phone");
      expect(e.problem).toMatch(/^bad value/);
    });

    it.each([
      ["Start Typing Delay", "61"],
      ["Start Typing Delay", "-1"],
      ["Start Typing Delay", "abc"],
      ["Start Typing Delay", "1.5s"],
      ["Typing Speed", "0"],
      ["Typing Speed", "0.5"],
      ["Typing Speed", "101"],
      ["Typing Speed", "1e1"],
      ["Read Delay", "601"],
      ["Read Delay", "Infinity"],
      ["Read Delay", "NaN"],
      ["Read Delay", "1,5"],
      ["Quiet Window", "61"],
      ["Quiet Window", "-1"],
      ["Quiet Window", "3s"],
      ["History Window", "0"],
      ["History Window", "51"],
      ["Thread Window", "-1"],
      ["History Window", "2.5"],
      ["Focused Window", "ten"],
      ["Focused Window", "-8"],
    ])("rejects %s = %s", (field, v) => {
      const e = fileError(() => parse(MINIMAL + `# ${field}\n${v}\n`));
      expect(e.field).toBe(field);
      expect(e.message).toContain(`field "${field}": bad value "${v}"`);
    });

    it("rejects a bad sticker set name", () => {
      const e = fileError(() => parse(MINIMAL + "# Agent Sticker Sets\nnot a set!\n"));
      expect(e.field).toBe("Agent Sticker Sets");
    });
  });
});

describe("Agent Phone", () => {
  it("is optional: a persona without one parses, and the phone is only a login default", () => {
    expect(parse(MINIMAL).phone).toBeUndefined();
    expect(parse(MINIMAL + "# Agent Phone\n+1 (555) 123-4567\n").phone).toBe("+15551234567");
  });
});

describe("role prompts", () => {
  it("looks in the persona's folder first, then the shared folder", () => {
    write("agents/Mira/prompts/Tone.md", "own tone\n");
    write("agents/prompts/Tone.md", "shared tone");
    write("agents/prompts/Facts.md", "\nshared facts\n\n");
    const dirs = [join(root, "agents/Mira/prompts"), join(root, "agents/prompts")];
    const p = parse(MINIMAL + "# Role Prompt\nTone\n- Facts.md\n", dirs);
    expect(p.rolePrompts).toEqual([
      { name: "Tone", text: "own tone" },
      { name: "Facts", text: "shared facts" },
    ]);
  });

  it("names the file, the field and the prompt when a prompt is missing", () => {
    const e = fileError(() => parse(MINIMAL + "# Role Prompt\nGhost\n", [join(root, "a"), join(root, "b")]));
    expect(e.file).toBe("agents/Test.md");
    expect(e.field).toBe("Role Prompt");
    expect(e.message).toMatch(/^agents\/Test\.md: field "Role Prompt": prompt "Ghost" not found/);
    expect(e.message).toContain(join(root, "b", "Ghost.md"));
  });

  it.each(["../secret", "a/b", "..", ".hidden"])("rejects the prompt name %s", (name) => {
    write("agents/secret.md", "secret");
    const e = fileError(() => parse(MINIMAL + `# Role Prompt\n${name}\n`, [join(root, "agents/prompts")]));
    expect(e.field).toBe("Role Prompt");
    expect(e.problem).toMatch(/bad prompt name/);
  });

  it("rejects an empty prompt file and a prompt listed twice", () => {
    write("p/Empty.md", "  \n");
    write("p/Tone.md", "tone");
    expect(fileError(() => parse(MINIMAL + "# Role Prompt\nEmpty\n", [join(root, "p")])).problem).toMatch(
      /is empty/,
    );
    expect(
      fileError(() => parse(MINIMAL + "# Role Prompt\nTone\nTone\n", [join(root, "p")])).problem,
    ).toMatch(/listed twice/);
  });
});

describe("loadPersonas", () => {
  it("loads every *.md directly in the directory, not subfolders", () => {
    write("agents/Mira.md", MINIMAL);
    write("agents/Bob.md", "# Agent Name\nBob\n# Agent Instructions\nGrumpy.\n# Role Prompt\nTone\n");
    write("agents/Bob/prompts/Tone.md", "dry");
    write("agents/prompts/Nested.md", "# Not a persona\n");
    write("agents/notes.txt", "ignored");
    const personas = loadPersonas(join(root, "agents"));
    expect(personas.map((p) => p.name)).toEqual(["Bob", "Mira"]);
    expect(personas[0]?.rolePrompts).toEqual([{ name: "Tone", text: "dry" }]);
    expect(personas[1]?.file).toBe(join(root, "agents", "Mira.md"));
  });

  it("keeps relative paths relative in files and messages", () => {
    write("agents/Mira.md", MINIMAL);
    write("agents/Bad.md", MINIMAL.replace("Mira", "Bad") + "# Group Mode\nloud\n");
    const rel = relative(process.cwd(), join(root, "agents"));
    const e = loadError(() => loadPersonas(rel));
    expect(e.errors).toHaveLength(1);
    expect(e.errors[0]?.message).toBe(
      `${join(rel, "Bad.md")}: field "Group Mode": unknown value "loud" (expected strict, smart or talkative)`,
    );
  });

  it("lists every failing file, not just the first", () => {
    write("agents/Good.md", MINIMAL);
    write("agents/A.md", "# Agent Name\nA\n");
    write("agents/B.md", "stray text\n" + MINIMAL);
    write("agents/C.md", MINIMAL.replace("Mira", "C") + "# Typing Speed\nfast\n");
    const e = loadError(() => loadPersonas(join(root, "agents")));
    expect(e.errors.map((x) => x.file)).toEqual(["A.md", "B.md", "C.md"].map((f) => join(root, "agents", f)));
    for (const f of ["A.md", "B.md", "C.md"]) expect(e.message).toContain(join(root, "agents", f));
    expect(e.message).not.toContain("Good.md");
  });

  it("rejects duplicate agent names across files", () => {
    write("agents/Mira.md", MINIMAL);
    write("agents/Mira2.md", MINIMAL.replace("Mira", "MIRA"));
    const e = loadError(() => loadPersonas(join(root, "agents")));
    expect(e.errors).toHaveLength(1);
    expect(e.errors[0]?.field).toBe("Agent Name");
    expect(e.errors[0]?.file).toBe(join(root, "agents", "Mira2.md"));
    expect(e.message).toContain(join(root, "agents", "Mira.md"));
  });

  it("fails on an empty directory", () => {
    mkdirSync(join(root, "agents"));
    write("agents/sub/X.md", MINIMAL);
    const e = loadError(() => loadPersonas(join(root, "agents")));
    expect(e.message).toBe(`no persona files (*.md) were found in ${join(root, "agents")}`);
    expect(e.errors).toEqual([]);
  });

  it("fails on a missing directory", () => {
    expect(loadError(() => loadPersonas(join(root, "nope"))).message).toMatch(
      /cannot read persona directory .*ENOENT/,
    );
  });

  it("reports an unreadable file and a file that is not UTF-8", () => {
    write("agents/Mira.md", MINIMAL);
    writeFileSync(join(root, "agents/Latin1.md"), Buffer.from([0x23, 0x20, 0xe9, 0xff, 0x0a]));
    symlinkSync(join(root, "missing-target.md"), join(root, "agents/Dangling.md"));
    const locked = write("agents/Locked.md", MINIMAL);
    chmodSync(locked, 0o000);
    const e = loadError(() => loadPersonas(join(root, "agents")));
    const latin = e.errors.find((x) => x.file.endsWith("Latin1.md"));
    expect(latin?.problem).toBe("not valid UTF-8");
    expect(latin?.field).toBeUndefined();
    // A dangling link is reported, not silently skipped.
    expect(e.errors.find((x) => x.file.endsWith("Dangling.md"))?.problem).toMatch(
      /^cannot be read: not found \(ENOENT\); make it readable/,
    );
    // Root ignores file modes; only assert the unreadable case where it applies.
    if (process.getuid?.() !== 0) {
      expect(e.errors.find((x) => x.file.endsWith("Locked.md"))?.problem).toMatch(
        /cannot be read: permission denied \(EACCES\)/,
      );
    }
    chmodSync(locked, 0o600);
  });

  it("loads the shipped sample persona", () => {
    const [mira, ...rest] = loadPersonas("agents");
    expect(rest).toEqual([]);
    expect(mira?.name).toBe("Mira");
    expect(mira?.file).toBe(join("agents", "Mira.md"));
    expect(mira?.groupMode).toBe("strict");
    expect(mira?.phone).toBeUndefined();
    expect(mira?.aliases).toContain("Mira");
    expect(mira?.instructions).toMatch(/short/);
    expect(mira?.instructions).toMatch(/empty plan/);
  });
});

describe("# Models", () => {
  const base = "# Agent Name\nMira\n\n# Agent Instructions\nBe kind.\n\n";
  it("routes purposes to providers and models, Ollama's name:tag kept whole", () => {
    const p = parsePersona(
      `${base}# Models\n- planning: gemini\n- addressing: openai:qwen3:1.7b\n- media: openai\n`,
      {
        file: "agents/Mira.md",
        promptDirs: [],
      },
    );
    expect(p.models).toEqual({
      plan: { provider: "gemini", setting: 'agents/Mira.md: field "Models"' },
      address: { provider: "openai", model: "qwen3:1.7b", setting: 'agents/Mira.md: field "Models"' },
      media: { provider: "openai", setting: 'agents/Mira.md: field "Models"' },
    });
  });
  it("a bad line names the file, the field and the line", () => {
    expect(() =>
      parsePersona(`${base}# Models\nthinking: claude\n`, { file: "agents/Mira.md", promptDirs: [] }),
    ).toThrow('agents/Mira.md: field "Models": "thinking: claude" is not "<purpose>: <provider>[:<model>]"');
    expect(() =>
      parsePersona(`${base}# Models\nplanning: claude\n`, { file: "agents/Mira.md", promptDirs: [] }),
    ).toThrow(/"claude" is not a provider: expected gemini or openai/);
  });
});
