// The console's entry point: the session, the router and the pages.
import { Api, ApiError, session } from "./api.js";
import { h, notice, replace } from "./dom.js";
import { parse } from "./router.js";
import { renderSignIn } from "./pages/signin.js";
import { renderTypes } from "./pages/types.js";
import { renderExplorer } from "./pages/explorer.js";
import { renderObject } from "./pages/object.js";
import { renderStatus } from "./pages/status.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const who = document.getElementById("who");
const signout = document.getElementById("signout");

let current = null; // {api, who}: the signed-in session
let view = null;    // the page shown: {el, cleanups}

const pages = { types: renderTypes, explore: renderExplorer, object: renderObject, status: renderStatus };

async function start() {
  window.addEventListener("hashchange", route);
  signout.addEventListener("click", signOutNow);
  // A token of this tab, or a server without tokens (loopback only),
  // which answers without one.
  try {
    current = await signIn(session.token());
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) {
      replace(main, notice("error", "Cannot reach the server: " + e.message));
      return;
    }
    session.clear();
  }
  route();
}

// signIn checks a token (empty: none) with the server.
async function signIn(token) {
  const api = new Api(token);
  const me = await api.whoami();
  api.onUnauthorized = () => {
    if (current && current.api === api) signOutNow();
  };
  return { api, who: me, anonymous: !token };
}

function signOutNow() {
  session.clear();
  current = null;
  route();
}

function route() {
  if (view) {
    for (const fn of view.cleanups) fn();
  }
  const el = h("div", { class: "page" });
  view = { el, cleanups: [] };
  replace(main, el);
  const r = parse(location.hash);
  const signedIn = !!current;
  nav.hidden = !signedIn;
  signout.hidden = !signedIn || current.anonymous;
  replace(who, signedIn ? [current.who.name, current.who.admin ? h("span", { class: "badge admin", text: "admin" }) : null] : "");
  if (!signedIn) {
    document.title = "Sign in · ontoindex";
    renderSignIn(el, async (token) => {
      const s = await signIn(token); // throws on a token the server refuses
      session.save(token);
      current = s;
      route();
    });
    return;
  }
  for (const a of nav.querySelectorAll("a")) {
    a.classList.toggle("active", a.dataset.page === r.page || (a.dataset.page === "types" && r.page !== "status"));
  }
  const render = pages[r.page] || renderTypes;
  const ctx = {
    api: current.api, who: current.who, segs: r.segs, params: r.params, el,
    onCleanup(fn) { view.cleanups.push(fn); },
    alive() { return view && view.el === el; },
  };
  Promise.resolve(render(ctx)).catch((e) => {
    if (ctx.alive() && !(e instanceof ApiError && e.status === 401)) el.append(notice("error", e.message || String(e)));
  });
}

start();
