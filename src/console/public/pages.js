import { api, el, links, time, userText } from "./dom.js";

const usd = (x) => `$${x.toFixed(4)}`;

function totalsTable(id, head, rows, name) {
  return el(
    "div",
    { class: "scroll" },
    el(
      "table",
      { id },
      el("tr", {}, el("th", {}, head), el("th", {}, "calls"), el("th", {}, "tokens"), el("th", {}, "cost")),
      rows.map((r) =>
        el(
          "tr",
          { dataset: { id: r.id } },
          el("td", {}, name(r)),
          el("td", {}, String(r.calls)),
          el("td", {}, r.tokens.toLocaleString("en-US")),
          el("td", {}, usd(r.costUsd)),
        ),
      ),
    ),
  );
}

export async function renderCosts() {
  const { rows, from, personas } = await api("costs");
  const days = [...new Set(rows.map((r) => r.day))].sort();
  const series = [...new Set(rows.map((r) => `${r.agent} · ${r.purpose}`))].sort();
  const canvas = el("canvas", { id: "cost-chart" });
  const nodes = [
    el("h2", {}, `Costs since ${from} (UTC days)`),
    // No model call yet (a dry run or the offline echo planner costs nothing): no empty chart.
    rows.length === 0
      ? el(
          "p",
          { class: "muted", id: "costs-none" },
          "No model calls in these 30 days, so nothing to chart: the offline echo planner and a dry run cost nothing. Calls to Gemini show here per day, persona and purpose.",
        )
      : el("div", { class: "chart" }, canvas),
    personas.map((p) =>
      el(
        "section",
        { class: "card costs-persona", dataset: { persona: p.name } },
        el("h3", {}, userText(p.name, ""), ": per chat (30 days)"),
        p.chats.length === 0
          ? el("p", { class: "muted" }, "no calls")
          : totalsTable("costs-chats", "chat", p.chats, (c) =>
              el(
                "a",
                { href: links.chat(p.name, c.id) },
                userText(c.title ?? c.id, ""),
                c.chatType ? el("span", { class: "muted" }, ` (${c.chatType})`) : "",
              ),
            ),
        el("h3", {}, userText(p.name, ""), ": per person (30 days)"),
        el(
          "p",
          { class: "muted" },
          "Whom a plan or addressing call was for: the sender of the message answered or judged.",
        ),
        p.people.length === 0
          ? el("p", { class: "muted" }, "no calls for a person yet")
          : totalsTable("costs-people", "person", p.people, (x) => [
              userText(x.name ?? x.id, ""),
              el("span", { class: "muted" }, `${x.username ? ` @${x.username}` : ""} (${x.id})`),
            ]),
      ),
    ),
    rows.length === 0 ? null : el("h3", {}, "Per day, persona and purpose"),
    rows.length === 0
      ? null
      : el(
          "div",
          { class: "scroll" },
          el(
            "table",
            { id: "costs" },
            el(
              "tr",
              {},
              el("th", {}, "day"),
              el("th", {}, "persona"),
              el("th", {}, "purpose"),
              el("th", {}, "calls"),
              el("th", {}, "tokens"),
              el("th", {}, "cost"),
            ),
            rows.map((r) =>
              el(
                "tr",
                {},
                el("td", {}, r.day),
                el("td", {}, userText(r.agent, "")),
                el("td", {}, r.purpose),
                el("td", {}, String(r.calls)),
                el("td", {}, String(r.tokens)),
                el("td", {}, usd(r.costUsd)),
              ),
            ),
          ),
        ),
  ];
  nodes.after = () => {
    if (typeof window.Chart !== "function" || rows.length === 0) return;
    new window.Chart(canvas, {
      type: "bar",
      data: {
        labels: days,
        datasets: series.map((s) => ({
          label: s,
          data: days.map((d) =>
            rows
              .filter((r) => r.day === d && `${r.agent} · ${r.purpose}` === s)
              .reduce((a, r) => a + r.costUsd, 0),
          ),
        })),
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: "USD" } } },
      },
    });
  };
  return nodes;
}

export async function renderSummaries(persona) {
  const { summaries, persona: name } = await api(
    `summaries${persona ? `?persona=${encodeURIComponent(persona)}` : ""}`,
  );
  return [
    el("h2", {}, "Summaries"),
    el(
      "p",
      { class: "muted" },
      "What each conversation's rolling summary holds (the persona reads it instead of the older messages).",
    ),
    summaries.length === 0
      ? el(
          "p",
          { class: "muted" },
          "none yet: a conversation gets its summary once it holds more unsummarised messages than the prompt's history window reaches (about twice # History Window), or after a day; in the sandbox the offline echo planner writes a canned one then.",
        )
      : null,
    summaries.map((s) =>
      el(
        "section",
        { class: "card summary", dataset: { lane: s.lane } },
        el(
          "h3",
          {},
          el("a", { href: links.chat(name, s.chatId) }, userText(s.chatTitle ?? s.chatId, "")),
          " · ",
          s.laneFilter
            ? el(
                "a",
                {
                  class: "lane",
                  href:
                    s.laneFilter.topic !== undefined
                      ? links.lane(name, s.chatId, "topic", s.laneFilter.topic)
                      : links.lane(name, s.chatId, "thread", s.laneFilter.thread),
                },
                // A topic's title is its creator's text.
                userText(s.laneName, ""),
              )
            : el("span", { class: "muted lane" }, s.laneName),
        ),
        el(
          "p",
          { class: "muted" },
          `version ${s.version} · covers `,
          el("a", { href: links.message(name, s.chatId, s.fromId) }, `#${s.fromId}`),
          "–",
          el("a", { href: links.message(name, s.chatId, s.toId) }, `#${s.toId}`),
          ` · updated ${time(s.updatedAt)}`,
        ),
        s.sections
          ? s.sections.length === 0
            ? el("p", { class: "muted" }, "(empty)")
            : s.sections.map((sec) =>
                el(
                  "div",
                  { class: "summary-section" },
                  el("h4", {}, sec.title),
                  el(
                    "ul",
                    {},
                    sec.items.map((i) => el("li", {}, userText(i))),
                  ),
                ),
              )
          : el("div", {}, userText(s.content)),
      ),
    ),
  ];
}
