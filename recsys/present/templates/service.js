"use strict";
// the scale of the model's ratings, from the page (no inline script runs under its Content-Security-Policy)
const LOW = Number(document.body.dataset.low), HIGH = Number(document.body.dataset.high), N = 10;
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
    li.append(el("span", r.name, "name"), el("span", r.rating + " / " + HIGH), x);
    return li;
  }));
}
function rate(item, name, v) { rated.set(item, {name, rating: v}); refresh(); }
let asking = 0;
async function refresh() {
  showRated();
  search();
  const mine = ++asking;
  if (!rated.size) { $("recommendations").replaceChildren(); return; }
  const ratings = [...rated].map(([item, r]) => ({item, rating: r.rating}));
  try {
    const body = await getJSON("/recommendations", {method: "POST", headers: {"content-type": "application/json"},
                                                    body: JSON.stringify({ratings, n: N})});
    if (mine !== asking) return;
    status("");
    $("recommendations").replaceChildren(...body.recommendations.map(showRecommendation));
    if (!body.recommendations.length) $("recommendations").append(el("li", "nothing to recommend yet: rate a movie you liked", "empty"));
    $("ignored").textContent = body.ignored.length ? "not in the model, ignored: " + body.ignored.join(", ") : "";
  } catch (e) { if (mine === asking) status(e.message); }
}
function showRecommendation(r) {
  const li = el("li");
  li.dataset.item = String(r.item);
  li.append(el("strong", r.name, "name"));
  if (r.new) li.append(el("span", " new: no rating yet, scored from its attributes", "new"));
  const p = r.like_probability === null ? "" : ", like-probability " + r.like_probability.toFixed(2);
  li.append(el("span", "  score " + r.score.toFixed(3) + p, "score"));
  const ul = el("ul", undefined, "reasons");
  const named = (r.contributions || []).length;  // the blend's reasons follow the contributions'
  for (const text of r.reasons.slice(0, named)) ul.append(el("li", text));
  if (r.others && r.others.movies) ul.append(el("li", "and " + r.others.movies + " more of your movies: " + (r.others.weight >= 0 ? "+" : "") + r.others.weight.toFixed(3)));
  if (r.others && r.others.attributes) ul.append(el("li", "and " + r.others.attributes + " more of its attributes: " + (r.others.weight >= 0 ? "+" : "") + r.others.weight.toFixed(3)));
  for (const text of r.reasons.slice(named)) ul.append(el("li", text));
  li.append(ul);
  return li;
}
let timer;
$("search").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(search, 150); });
$("known").addEventListener("submit", (e) => {
  e.preventDefault();
  const u = $("user").value.trim();
  if (u) window.location.href = "/users/" + encodeURIComponent(u) + "/report";
});
search();
