// FOOL!: the trick on the table, each finished trick with its winner and Fool(s), sit-outs, the
// hands (a replay shows them; a live match only their sizes), and the round scores.
import { add, card, cards, el, line, seatName, seatPanel, last as lastOf } from "../common.js";

function trickRow(trick, ctx, index) {
  const row = el("li", "trick");
  row.append(el("span", "label", `Trick ${index + 1}: `));
  for (const play of trick.plays) add(row, el("span", "who", `${seatName(ctx, play.seat)} `), card(play.card));
  row.append(el("span", "winner", ` · won by ${seatName(ctx, trick.winner)}`));
  if (trick.fools.length) row.append(el("span", "fools", ` · Fool: ${trick.fools.map((f) => seatName(ctx, f)).join(", ")}`));
  if (trick.sat_out.length) row.append(el("span", "sat-out", ` · sat out: ${trick.sat_out.map((f) => seatName(ctx, f)).join(", ")}`));
  return row;
}

export function render(root, s, ctx) {
  const head = el("div", "summary");
  const setup = s.setup || s;
  add(head, line("Round", String(s.round)), line("Dealer", seatName(ctx, s.dealer)), line("Leader", seatName(ctx, s.leader)));
  if ((s.sitting_out || []).length) head.append(line("Sitting out", s.sitting_out.map((x) => seatName(ctx, x)).join(", ")));
  if (setup.fools_per_trick) head.append(line("Fools per trick", String(setup.fools_per_trick)));
  root.append(head);
  const current = el("div", "current-trick");
  current.append(el("h3", null, "On the table"));
  const plays = el("div", "cards");
  for (const play of s.trick || []) add(plays, el("span", "who", `${seatName(ctx, play.seat)} `), card(play.card));
  if (!(s.trick || []).length) plays.append(el("span", "none", "—"));
  current.append(plays);
  root.append(current);
  const done = s.tricks || [];
  const last = lastOf(s.history);
  const tricks = el("ol", "tricks");
  done.forEach((t, i) => tricks.append(trickRow(t, ctx, i)));
  root.append(add(el("div", "tricks-box"), el("h3", null, `Tricks this round (${done.length})`), tricks));
  if (last && done.length === 0) {
    const previous = el("ol", "tricks");
    last.tricks.forEach((t, i) => previous.append(trickRow(t, ctx, i)));
    root.append(add(el("div", "tricks-box"), el("h3", null, `Round ${last.round}'s tricks`), previous));
  }
  const seats = el("div", "seats");
  const n = setup.num_players || s.num_players;
  for (let seat = 0; seat < n; seat++) {
    const panel = seatPanel(ctx, seat);
    if (s.hands) panel.append(line("Hand", cards(s.hands[seat])));
    else if (s.hand_sizes) panel.append(line("Hand", `${s.hand_sizes[seat]} cards (hidden)`));
    if (last) panel.append(line(`Left in hand, round ${last.round}`, cards(last.left_in_hand[seat])));
    if (last) panel.append(line(`Round ${last.round} score`, String(last.scores[seat])));
    panel.append(line("Total", el("b", "points", (s.totals || [])[seat] ?? 0)));
    seats.append(panel);
  }
  root.append(seats);
}
