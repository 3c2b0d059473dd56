// Small DOM helpers shared by the game renderers. Text goes in through textContent only: every
// bot-supplied string stays text, whatever it contains.

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function add(parent, ...children) {
  for (const child of children) if (child) parent.append(child);
  return parent;
}

// A card or tile: its notation as text (a letter for its colour, so colour is never the only cue)
// and a class per colour letter for the colour itself.
export function card(text, extra) {
  const value = String(text);
  const node = el("span", `card c-${value.replace(/[^A-Za-z]/g, "").slice(0, 2) || "x"}`, value);
  if (extra) node.classList.add(extra);
  node.dataset.card = value;
  return node;
}

export function cards(list, label) {
  const row = el("span", "cards");
  if (label) row.setAttribute("aria-label", label);
  for (const c of list || []) row.append(card(c));
  if (!list || list.length === 0) row.append(el("span", "none", "—"));
  return row;
}

export function seatName(ctx, seat) {
  return ctx.players[seat] ?? `seat ${seat}`;
}

// A panel per seat, titled with the bot's name.
export function seatPanel(ctx, seat, extraClass) {
  const panel = el("section", `seat ${extraClass || ""}`);
  panel.dataset.seat = String(seat);
  add(panel, el("h3", "seat-name", `${seat + 1}. ${seatName(ctx, seat)}`));
  return panel;
}

export function line(label, content) {
  const row = el("div", "line");
  row.dataset.field = label;
  add(row, el("span", "label", label));
  if (content instanceof Node) row.append(content);
  else row.append(el("span", "value", content));
  return row;
}

// The last element of a list that may be missing (a public view has no history, a state may).
export function last(list) {
  return list && list.length ? list[list.length - 1] : undefined;
}
