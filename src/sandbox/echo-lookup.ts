/**
 * The sandbox's stand-ins for look-ups (docs/world.md), so a look-up can be seen happening without
 * a key: `--echo` answers each one with a canned text labelled as not looked up, and the pages the
 * sandbox's Telegram previews (SANDBOX_PAGES) are there to link to.
 */
import type { LookupAnswer, LookupClient, LookupRequest } from "../llm/grounded";

/** Pages the sandbox's Telegram has link previews for: post one of these URLs to see a preview. */
export const SANDBOX_PAGES: readonly {
  readonly url: string;
  readonly page: { siteName: string; title: string; description: string; type: string; pending?: boolean };
}[] = [
  {
    url: "https://news.example.com/riga-weather",
    page: {
      siteName: "Example News",
      title: "Rain all week in Riga",
      description: "Forecasters expect showers and about 4 °C until Sunday.",
      type: "article",
    },
  },
  {
    url: "https://video.example.com/cats",
    page: { siteName: "Example Video", title: "Ten cats", description: "Cats, ten of them.", type: "video" },
  },
];

/** `--echo`: every look-up "finds" a canned line that says it is not from the web. */
export class EchoLookup implements LookupClient {
  constructor(private readonly print?: (line: string) => void) {}

  onUsage(): () => void {
    return () => {};
  }

  async lookUp(req: LookupRequest): Promise<LookupAnswer> {
    const what = req.query !== undefined ? `search "${req.query}"` : `open ${req.url ?? "?"}`;
    this.print?.(`[echo look-up, nothing fetched] would ${what}`);
    return {
      text: `(echo, not looked up) the answer to: ${req.query ?? req.url ?? ""}`,
      sources: [],
      queries: req.query !== undefined ? [req.query] : [],
      urls: req.url !== undefined ? [{ url: req.url, status: "success" }] : [],
      noMetadata: false,
      cut: false,
    };
  }
}
