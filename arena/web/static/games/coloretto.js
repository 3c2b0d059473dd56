// Coloretto: the rows on the table, the drawn card, this round's takes, each collection, and at
// the end each seat's scoring with its jokers' colours.
import { add, card, cards, el, line, seatPanel, seatName, last as lastOf } from "../common.js";

function collection(counts) {
  const row = el("span", "cards");
  const entries = Object.entries(counts || {});
  for (const [c, count] of entries) {
    const item = el("span", "stack");
    add(item, card(c), el("small", "count", `×${count}`));
    row.append(item);
  }
  if (entries.length === 0) row.append(el("span", "none", "—"));
  return row;
}

export function render(root, s, ctx) {
  const head = el("div", "summary");
  add(head, line("Game", `${s.game} of ${s.games}`), line("Round", String(s.round)));
  head.append(line("Drawn card", s.drawn ? card(s.drawn) : "—"));
  if (s.last_round) head.append(line("Last round", "yes"));
  root.append(head);
  const rows = el("div", "rows");
  (s.rows || []).forEach((r, index) => {
    const row = el("div", "row");
    row.dataset.row = String(index);
    const taker = (s.taken_by || [])[index];
    add(row, el("span", "label", `Row ${index + 1}`), cards(r));
    if (taker !== null && taker !== undefined) row.append(el("span", "taken", `taken by ${seatName(ctx, taker)}`));
    rows.append(row);
  });
  root.append(rows);
  if ((s.takes || []).length) {
    const takes = el("ul", "takes");
    for (const t of s.takes) takes.append(add(el("li"), el("span", null, `${seatName(ctx, t.seat)} took row ${t.row + 1}: `), cards(t.cards)));
    root.append(add(el("div", "takes-box"), el("h3", null, "Takes this round"), takes));
  }
  const seats = el("div", "seats");
  const final = lastOf(s.results);
  for (let seat = 0; seat < s.num_players; seat++) {
    const panel = seatPanel(ctx, seat);
    panel.append(line("Collection", collection((s.collections || [])[seat])));
    panel.append(line("Total", el("b", "points", (s.totals || [])[seat] ?? 0)));
    if (final) {
      const score = final.scores[seat];
      panel.append(line("Game score", String(score.score)));
      panel.append(line("Jokers counted as", cards(score.jokers)));
      panel.append(line("Scoring colours", cards(score.positive)));
      panel.append(line("Negative colours", cards(score.negative)));
    }
    seats.append(panel);
  }
  root.append(seats);
}
