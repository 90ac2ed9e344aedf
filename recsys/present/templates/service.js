"use strict";
// the scale of the model's ratings, from the page (no inline script runs under its Content-Security-Policy)
const LOW = Number(document.body.dataset.low), HIGH = Number(document.body.dataset.high), N = 10;
// a model of implicit feedback: a person picks the items they chose, no rating
const IMPLICIT = document.body.dataset.implicit === "1";
const rated = new Map();  // item id -> {name, rating}
const $ = (id) => document.getElementById(id);
function el(tag, text, cls) {  // text is always set as text, never parsed as HTML
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function status(text) { $("status").textContent = text || ""; }
async function getJSON(url, options) {
  const r = await fetch(url, options);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) {
    const d = body.detail;
    throw new Error(Array.isArray(d) ? d.map((x) => x.msg).join("; ") : (d || r.statusText));
  }
  return body;
}
function stars(item, name) {
  const box = el("span", undefined, "stars");
  if (IMPLICIT) {
    const b = el("button", "I chose it");
    b.type = "button";
    if (rated.has(item)) b.classList.add("on");
    b.addEventListener("click", () => rate(item, name, null));
    box.append(b);
    return box;
  }
  for (let v = Math.ceil(LOW); v <= Math.floor(HIGH); v++) {
    const b = el("button", String(v));
    b.type = "button";
    b.dataset.rating = String(v);
    if (rated.has(item) && rated.get(item).rating === v) b.classList.add("on");
    b.addEventListener("click", () => rate(item, name, v));
    box.append(b);
  }
  return box;
}
let searching = 0;
async function search() {
  // an empty search shows popular movies of varied genres: something to rate on arrival
  const q = $("search").value.trim(), mine = ++searching;
  try {
    const body = await getJSON(q ? "/items?limit=12&q=" + encodeURIComponent(q) : "/items/starters?limit=12");
    if (mine !== searching) return;
    $("results-title").textContent = q ? "Titles with " + JSON.stringify(q) : "Popular movies to start with";
    $("results").replaceChildren(...body.items.map((it) => {
      const li = el("li");
      li.dataset.item = String(it.item);
      li.append(el("span", it.name, "name"), stars(it.item, it.name));
      return li;
    }));
    if (!body.items.length) $("results").append(el("li", "no title contains " + JSON.stringify(q), "empty"));
  } catch (e) { status(e.message); }
}
function showRated() {
  $("rated-count").textContent = String(rated.size);
  $("rated").replaceChildren(...[...rated].map(([item, r]) => {
    const li = el("li");
    li.dataset.item = String(item);
    const x = el("button", "×", "remove");
    x.type = "button";
    x.title = "remove";
    x.addEventListener("click", () => { rated.delete(item); refresh(); });
    li.append(el("span", r.name, "name"), IMPLICIT ? "" : el("span", r.rating + " / " + HIGH), x);
    return li;
  }));
}
function rate(item, name, v) { rated.set(item, {name, rating: v}); refresh(); }
let asking = 0;
async function refresh() {
  showRated();
  search();
  const mine = ++asking;
  // busy until the answer to these ratings is shown: an answer to earlier ratings is dropped
  const list = $("recommendations");
  list.setAttribute("aria-busy", "true");
  if (!rated.size) { list.replaceChildren(); showGroups({}); list.setAttribute("aria-busy", "false"); return; }
  const ratings = [...rated].map(([item, r]) => (IMPLICIT ? {item} : {item, rating: r.rating}));
  try {
    const body = await getJSON("/recommendations", {method: "POST", headers: {"content-type": "application/json"},
                                                    body: JSON.stringify({ratings, n: N})});
    if (mine !== asking) return;
    status("");
    $("recommendations").replaceChildren(...body.digest.items.map(showRecommendation));
    if (!body.recommendations.length) $("recommendations").append(el("li", IMPLICIT ? "nothing to recommend yet: pick more items" : "nothing to recommend yet: rate a movie you liked", "empty"));
    showGroups(body.digest.groups);
    $("ignored").textContent = body.ignored.length ? "not in the model, ignored: " + body.ignored.join(", ") : "";
    list.setAttribute("aria-busy", "false");
  } catch (e) { if (mine === asking) { status(e.message); list.setAttribute("aria-busy", "false"); } }
}
const signed = (w) => (w >= 0 ? "+" : "") + w.toFixed(3);
function term(t) {  // one reason: its weight, its words, the group (co-cluster) that liked both movies
  const li = el("li");
  if (t.weight !== null) li.append(el("span", signed(t.weight), "w"), " ");
  li.append(t.text);
  if (t.group) li.append(" ", el("a", t.group, "group"));
  if (t.group) li.lastChild.href = "#group-" + t.group;
  return li;
}
function showRecommendation(r) {
  const li = el("li");
  li.dataset.item = String(r.item);
  li.append(el("strong", r.name, "name"));
  if (r.new) li.append(el("span", " new: no rating yet, scored from its attributes", "new"));
  const p = r.like_probability === null ? "" : ", like-probability " + r.like_probability.toFixed(2);
  li.append(el("span", "  score " + r.score.toFixed(3) + p, "score"));
  if (r.own !== null) {
    const parts = [signed(r.own) + (r.new ? " its attributes" : IMPLICIT ? " your items" : " your movies"), ...r.blend.map((t) => signed(t.weight) + " " + t.label + " (" + t.text + ")")];
    li.append(el("p", "= " + parts.join(" "), "parts"));
  }
  const ul = el("ul", undefined, "reasons");
  r.shown.forEach((t) => ul.append(term(t)));
  const rest = r.more.terms_listed;
  if (rest.length === 1) ul.append(term({...rest[0], text: "and " + rest[0].text}));
  li.append(ul);
  if (rest.length > 1) {  // the rest behind a "more"
    const more = el("details", undefined, "more");
    more.append(el("summary", signed(r.more.weight) + " and " + r.more.terms + " more"));
    const all = el("ul", undefined, "reasons");
    rest.forEach((t) => all.append(term(t)));
    more.append(all);
    li.append(more);
  }
  return li;
}
function showGroups(groups) {  // each group once for the whole list
  const ids = Object.keys(groups);
  $("groups-title").hidden = !ids.length;
  $("groups").replaceChildren(...ids.flatMap((id) => {
    const dt = el("dt", id);
    dt.id = "group-" + id;
    return [dt, el("dd", groups[id].text)];
  }));
}
let timer;
$("search").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(search, 150); });
$("known").addEventListener("submit", (e) => {
  e.preventDefault();
  const u = $("user").value.trim();
  if (u) window.location.href = "/users/" + encodeURIComponent(u) + "/report";
});
search();
