// The sign-in form: the token goes to the server in the Authorization
// header of one request, then into sessionStorage. The form is never
// submitted (no URL, no query string).
import { add, h, notice, replace } from "../dom.js";

export function renderSignIn(el, submit) {
  const input = h("input", { id: "token", name: "token", type: "password", autocomplete: "off", spellcheck: "false", required: true,
    placeholder: "bearer token", "aria-label": "Bearer token" });
  const msg = h("div", { id: "signin-message" });
  const button = h("button", { id: "signin", type: "submit", text: "Sign in" });
  const form = h("form", { class: "signin", id: "signin-form", autocomplete: "off" },
    h("h1", { text: "Sign in" }),
    h("p", { text: "Paste a bearer token of this server's auth.tokens. It is kept in this tab only (sessionStorage), until you sign out or close the tab." }),
    input, button, msg);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    button.disabled = true;
    replace(msg);
    try {
      await submit(token);
    } catch (e) {
      const why = e.errorName === "InvalidCredentials" ? "The server does not know this token." : e.message;
      replace(msg, notice("error", why));
      button.disabled = false;
      input.select();
    }
  });
  add(el, form);
  input.focus();
}
