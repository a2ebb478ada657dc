/** parse-prometheus-text-format ships no types: what its parser returns. */
declare module "parse-prometheus-text-format" {
  interface Sample {
    readonly value?: string;
    readonly labels?: Record<string, string>;
  }
  interface Family {
    readonly name: string;
    readonly help: string;
    readonly type: string;
    readonly metrics: readonly Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
