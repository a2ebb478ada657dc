/**
 * Splits a persona file into `# Heading` sections. Only level-1 ATX headings at the start of a
 * line count (`## Sub` stays part of the value), and lines inside fenced code blocks are never
 * headings, so instructions may contain a shell snippet with `# comments`.
 */
import { ConfigError } from "./config-error";

/** One `# Heading` and the text under it. */
export interface PersonaSection {
  /** The heading text as written, trimmed. */
  readonly heading: string;
  /** Heading text trimmed, inner whitespace collapsed, lower-cased: what fields are matched on. */
  readonly key: string;
  /** 1-based line of the heading. */
  readonly line: number;
  /** The text up to the next heading, trimmed. */
  readonly value: string;
}

const HEADING_RE = /^#(?:[ \t]+(.*))?$/;
const FENCE_RE = /^ {0,3}(```|~~~)/;

/** The key a heading is matched on: case-insensitive, whitespace-insensitive. */
export function headingKey(heading: string): string {
  return heading.trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * Splits `text` into sections; throws a ConfigError for non-blank text before the first
 * heading. Does not judge the headings themselves.
 */
export function splitSections(text: string, file: string): PersonaSection[] {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  const sections: PersonaSection[] = [];
  let current: { heading: string; line: number; body: string[] } | null = null;
  let fence: string | null = null;

  const flush = (): void => {
    if (current === null) return;
    const heading = current.heading;
    sections.push({
      heading,
      key: headingKey(heading),
      line: current.line,
      value: current.body.join("\n").trim(),
    });
  };

  lines.forEach((line, i) => {
    const fenceMatch = FENCE_RE.exec(line);
    if (fenceMatch !== null) {
      const marker = fenceMatch[1] as string;
      if (fence === null) fence = marker;
      else if (fence === marker) fence = null;
    }
    const heading = fence === null && fenceMatch === null ? HEADING_RE.exec(line) : null;
    if (heading !== null) {
      flush();
      // A closing sequence (`# Name #`) is Markdown decoration, not part of the name.
      const name = (heading[1] ?? "").replace(/[ \t]+#+[ \t]*$/, "").trim();
      current = { heading: name, line: i + 1, body: [] };
    } else if (current !== null) {
      current.body.push(line);
    } else if (line.trim() !== "") {
      throw new ConfigError({
        file,
        problem: `text before the first heading (line ${i + 1}); every value must sit under a "# Field" heading`,
      });
    }
  });
  flush();
  return sections;
}
