// The match viewer: a finished match's replay stepped turn by turn (buttons, round menu, arrow
// keys), or a running match's public view kept live by server-sent events. Each game's drawing is
// its own module in games/<game>.js, exporting render(root, state, context).
import { add, el, seatName } from "./common.js";

const viewer = document.getElementById("viewer");
const board = document.getElementById("board");
const actionsBox = document.getElementById("actions");
const turnNo = document.getElementById("turn-no");
const matchId = viewer.dataset.match;
const game = viewer.dataset.game;

function showActions(actions, ctx) {
  actionsBox.replaceChildren();
  if (!actions.length) return;
  const list = el("ul", "played");
  for (const a of actions) {
    const item = el("li");
    add(item, el("span", "who", `${seatName(ctx, a.seat)}: `), el("code", "action", a.action));
    if (a.fallback) item.append(el("span", "fallback", ` (${a.fallback}: fallback played)`));
    list.append(item);
  }
  actionsBox.append(list);
}

function draw(renderer, state, ctx) {
  board.replaceChildren();
  renderer.render(board, state, ctx);
}

async function replay(renderer) {
  const response = await fetch(`/api/matches/${encodeURIComponent(matchId)}/replay`);
  if (!response.ok) throw new Error(`replay: HTTP ${response.status}`);
  const data = await response.json();
  const turns = data.turns;
  const ctx = { players: data.players, live: false };
  const roundJump = document.getElementById("round-jump");
  document.getElementById("turn-count").textContent = String(turns.length - 1);
  const firstOfRound = new Map();
  turns.forEach((s, i) => { if (s.round !== null && !firstOfRound.has(s.round)) firstOfRound.set(s.round, i); });
  for (const [round, index] of firstOfRound) {
    const option = el("option", null, String(round));
    option.value = String(index);
    roundJump.append(option);
  }
  let at = 0;
  const go = (index) => {
    at = Math.max(0, Math.min(turns.length - 1, index));
    const turn = turns[at];
    turnNo.textContent = String(at);
    viewer.dataset.turn = String(at);
    draw(renderer, turn.state, ctx);
    showActions(turn.actions, ctx);
    if (turn.round !== null) roundJump.value = String(firstOfRound.get(turn.round));
  };
  const moves = { first: () => 0, back: () => at - 1, forward: () => at + 1, last: () => turns.length - 1 };
  viewer.querySelectorAll("[data-go]").forEach((button) => {
    button.addEventListener("click", () => go(moves[button.dataset.go]()));
  });
  roundJump.addEventListener("change", () => go(Number(roundJump.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLSelectElement || event.target instanceof HTMLInputElement) return;
    const keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
    const move = keys[event.key];
    if (move) { event.preventDefault(); go(moves[move]()); }
  });
  const wanted = Number(new URLSearchParams(location.search).get("turn") || 0);
  go(Number.isFinite(wanted) ? wanted : 0);
  viewer.dataset.ready = "true";
}

function live(renderer) {
  const status = document.getElementById("live-status");
  const players = [...document.querySelectorAll("h1 ~ p a.bot")].map((a) => a.textContent);
  const ctx = { players, live: true };
  const source = new EventSource(`/api/matches/${encodeURIComponent(matchId)}/events`);
  let seen = 0;
  const onEvent = (message) => {
    const event = JSON.parse(message.data);
    seen += 1;
    turnNo.textContent = String(event.turn);
    viewer.dataset.turn = String(event.turn);
    viewer.dataset.events = String(seen);
    status.textContent = event.kind === "ended" ? "the match has ended" : "watching";
    draw(renderer, event.view, ctx);
    showActions(event.actions, ctx);
    if (event.kind === "ended") {
      source.close();
      viewer.dataset.ended = "true";
    }
  };
  for (const kind of ["started", "turn", "ended"]) source.addEventListener(kind, onEvent);
  source.addEventListener("error", () => {
    if (viewer.dataset.ended !== "true") status.textContent = "reconnecting…";
  });
  viewer.dataset.ready = "true";
}

async function main() {
  let renderer;
  try {
    renderer = await import(`./games/${encodeURIComponent(game)}.js`);
  } catch {
    board.replaceChildren(el("p", "empty", `No drawing for the game ${game} yet.`));
    return;
  }
  if (viewer.dataset.state === "finished") await replay(renderer);
  else live(renderer);
}

main();
