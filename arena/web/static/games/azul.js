// Azul: factories and centre, each board's pattern lines, wall and floor, scores.
import { add, card, cards, el, line, seatPanel } from "../common.js";

// The standard wall's pattern (arena/games/azul/tiles.py): row r, column c takes COLOURS[(c - r) % 5].
const COLOURS = ["B", "Y", "R", "K", "W"];

function emptyCell(s, row, column) {
  const hint = s.wall_side === "STANDARD" ? COLOURS[(((column - row) % 5) + 5) % 5].toLowerCase() : "·";
  return el("span", "card empty-tile", hint);
}

export function render(root, s, ctx) {
  const head = el("div", "summary");
  add(head, line("Round", String(s.round)), line("Phase", String(s.phase).toLowerCase()));
  if (s.end) head.append(line("Ended", String(s.end).toLowerCase()));
  root.append(head);
  const table = el("div", "factories");
  (s.factories || []).forEach((f, index) => {
    const factory = el("div", "factory");
    factory.dataset.factory = String(index);
    add(factory, el("span", "label", `F${index + 1}`), cards(f));
    table.append(factory);
  });
  const centre = el("div", "factory centre");
  add(centre, el("span", "label", "Centre"), cards(s.centre));
  if (s.marker_in_centre) centre.append(card("S", "marker"));
  table.append(centre);
  root.append(table);
  const seats = el("div", "seats");
  (s.boards || []).forEach((board, seat) => {
    const panel = seatPanel(ctx, seat);
    const lines = el("div", "pattern");
    board.lines.forEach((l, index) => lines.append(add(el("div", "pline"), el("span", "label", `${index + 1}`), cards(l))));
    const wall = el("div", "wall");
    board.wall.forEach((row, r) => {
      const line = el("div", "wall-row");
      row.forEach((tile, c) => line.append(tile ? card(tile) : emptyCell(s, r, c)));
      wall.append(line);
    });
    add(panel, add(el("div", "board-grid"), lines, wall));
    panel.append(line("Floor", cards(board.floor)));
    panel.append(line("Score", el("b", "points", board.score)));
    seats.append(panel);
  });
  root.append(seats);
}
