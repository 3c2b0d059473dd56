// 5211: the cards each seat laid this round, the last round's scoring rule, each seat's score pile.
import { add, cards, el, line, seatPanel, last as lastOf } from "../common.js";

export function render(root, s, ctx) {
  const last = lastOf(s.history);
  const head = el("div", "summary");
  add(head, line("Round", `${s.round}${s.turn !== undefined ? ` · turn ${Math.min(3, (s.turn || 0) + (ctx.live ? 0 : 1))}` : ""}`));
  if (s.deck_number) head.append(line("Deck", String(s.deck_number)));
  if (last) {
    const rule = last.kind === "COLOUR" ? `colour ${last.colour}` : last.kind.toLowerCase();
    head.append(line("Last round scored by", rule));
  }
  root.append(head);
  const seats = el("div", "seats");
  const n = s.num_players;
  for (let seat = 0; seat < n; seat++) {
    const panel = seatPanel(ctx, seat);
    panel.append(line("Laid this round", cards((s.laid || [])[seat])));
    if (s.hands) panel.append(line("Hand", cards(s.hands[seat])));
    else if (s.hand_sizes) panel.append(line("Hand", `${s.hand_sizes[seat]} cards (hidden)`));
    if (s.score_piles) panel.append(line("Score pile", cards(s.score_piles[seat])));
    if (last) panel.append(line("Last round laid", cards(last.laid[seat])));
    if (last) panel.append(line("Last round scored", cards(last.scored[seat])));
    const points = (s.totals || s.points || [])[seat];
    panel.append(line("Points", el("b", "points", points ?? 0)));
    seats.append(panel);
  }
  root.append(seats);
}
