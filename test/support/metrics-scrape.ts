/** Read `/metrics` as Prometheus would: the text format, parsed by a Prometheus text parser. */
import parsePrometheusTextFormat from "parse-prometheus-text-format";

export interface Scrape {
  /** The value of the series `name` whose labels include `labels` (undefined when there is none). */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every label set of a family. */
  labelSets(name: string): Record<string, string>[];
  readonly families: ReturnType<typeof parsePrometheusTextFormat>;
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`, { headers });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  if (!(res.headers.get("content-type") ?? "").startsWith("text/plain"))
    throw new Error(`/metrics content type ${res.headers.get("content-type")}`);
  const families = parsePrometheusTextFormat(await res.text());
  const family = (name: string) => families.find((f) => f.name === name);
  return {
    families,
    value(name, labels = {}) {
      const s = family(name)?.metrics.find((m) =>
        Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
      );
      return s?.value === undefined ? undefined : Number(s.value);
    },
    labelSets: (name) => (family(name)?.metrics ?? []).map((m) => ({ ...m.labels })),
  };
}
