/**
 * Link previews: what Telegram's server attached to a message with a link (`messageMediaWebPage`),
 * as parsed from the update with no request, and how a link reads in the prompt. Platform-neutral:
 * src/telegram/inbound/media-parse.ts builds it from GramJS objects.
 *
 * `[link nytimes.com (The New York Times), article: "Title" — short description]`; a link Telegram
 * has no preview for (or one still being generated) reads as `[link nytimes.com]`.
 */

/** The preview as stored with the message (`messages.media`, kind `webpage`). */
export interface LinkPreview {
  /** Telegram's id of the preview (a long, decimal): an `updateWebPage` names it. */
  readonly id?: string;
  readonly url?: string;
  /** The site's name (`site_name`), e.g. "YouTube". */
  readonly site?: string;
  readonly title?: string;
  /** The page's description, cut to {@link DESCRIPTION_MAX} characters. */
  readonly description?: string;
  /** The kind as Telegram gives it: `article`, `video`, `photo`, `profile`, `telegram_channel` … */
  readonly type?: string;
  readonly author?: string;
  /** `webPagePending`: Telegram is still generating it (updateWebPage or an edit completes it). */
  readonly pending?: true;
  /** `webPageEmpty`: Telegram has no preview for this link. */
  readonly empty?: true;
}

/** Bounds of what a preview keeps (a site may send a whole article as its description). */
const TITLE_MAX = 200;
const DESCRIPTION_MAX = 300;
const SITE_MAX = 60;
const URL_MAX = 2_048;

/** Cut `s` to `max` characters (code points), with an ellipsis when cut; undefined for empty. */
function bounded(s: string | undefined, max: number): string | undefined {
  if (s === undefined) return undefined;
  const t = s.length > max * 2 ? s.slice(0, max * 2) : s;
  const cps = Array.from(t.trim());
  if (cps.length === 0) return undefined;
  return cps.length > max ? `${cps.slice(0, max - 1).join("")}…` : cps.join("");
}

/** A preview with its fields bounded (what parse stores). */
export function boundedPreview(
  p: Omit<LinkPreview, "pending" | "empty"> & { readonly pending?: boolean; readonly empty?: boolean },
): LinkPreview {
  const url = bounded(p.url, URL_MAX);
  const site = bounded(p.site, SITE_MAX);
  const title = bounded(p.title, TITLE_MAX);
  const description = bounded(p.description, DESCRIPTION_MAX);
  const type = bounded(p.type, 40);
  const author = bounded(p.author, SITE_MAX);
  return {
    ...(p.id !== undefined ? { id: p.id } : {}),
    ...(url !== undefined ? { url } : {}),
    ...(site !== undefined ? { site } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(type !== undefined ? { type } : {}),
    ...(author !== undefined ? { author } : {}),
    ...(p.pending ? { pending: true as const } : {}),
    ...(p.empty ? { empty: true as const } : {}),
  };
}

/** Square brackets would end the part early; a user-controlled name or description loses them. */
export function cleanPart(s: string): string {
  return s
    .replace(/[[\]]/g, (c) => (c === "[" ? "(" : ")"))
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The domain a link reads as: `https://www.nytimes.com/2026/…` → `nytimes.com`. A URL without a
 * scheme (`example.com/x`, as people type them) is read as https; undefined when it is not a URL
 * with a host (the caller shows the text cut short instead).
 */
export function domainOf(url: string): string | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`;
  try {
    const u = new URL(withScheme);
    if ((u.protocol !== "http:" && u.protocol !== "https:") || u.hostname === "") return undefined;
    return u.hostname.replace(/^www\./i, "").toLowerCase();
  } catch {
    return undefined;
  }
}

/** "YouTube" adds nothing to `youtube.com`: a site name that spells the domain is left out. */
function namesDomain(site: string, domain: string | undefined): boolean {
  if (domain === undefined) return false;
  const s = site.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
  return s !== "" && domain.replace(/[^\p{L}\p{N}]/gu, "").startsWith(s);
}

/** How a preview reads: see the file's comment. */
export function renderPreview(p: LinkPreview): string {
  const domain = p.url !== undefined ? domainOf(p.url) : undefined;
  const where = domain ?? (p.url !== undefined ? cleanPart(bounded(p.url, 60) ?? "") : "");
  const head = `link${where ? ` ${where}` : ""}`;
  if (p.pending || p.empty) return `[${head}]`;
  const site = p.site && !namesDomain(p.site, domain) ? ` (${cleanPart(p.site)})` : "";
  const type = p.type ? `, ${cleanPart(p.type).replace(/_/g, " ")}` : "";
  const body = [
    p.title ? `"${cleanPart(p.title).replace(/"/g, "'")}"` : undefined,
    p.author ? `by ${cleanPart(p.author)}` : undefined,
  ]
    .filter(Boolean)
    .join(" ");
  const desc = p.description ? cleanPart(p.description) : "";
  const text = [body, desc].filter((s) => s !== "").join(" — ");
  return text ? `[${head}${site}${type}: ${text}]` : `[${head}${site}${type}]`;
}

/** http(s) links and bare `www.` / `domain.tld/…` links in a text, as people type them. */
const LINK_RE = /\b(?:https?:\/\/[^\s<>"'`]+|www\.[^\s<>"'`]+)/giu;

/**
 * The `[link domain]` parts of the links a text carries without a preview (at most 3, each domain
 * once); empty when it carries none. Only run when the prompt is built, never on arrival.
 */
export function linkParts(text: string): string {
  if (!text.includes("http") && !text.includes("www.")) return "";
  const seen = new Set<string>();
  for (const m of text.matchAll(LINK_RE)) {
    const d = domainOf(m[0].replace(/[.,;:!?)\]]+$/u, ""));
    if (d !== undefined) seen.add(d);
    if (seen.size >= 3) break;
  }
  return [...seen].map((d) => `[link ${d}]`).join(" ");
}
