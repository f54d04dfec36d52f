// confirm asks before an operator action, in the page's <dialog>: it
// resolves true when the operator confirms, false on Cancel or Escape.
export function confirm(title, text, ok) {
  const d = document.getElementById("confirm");
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = text;
  const okButton = document.getElementById("confirm-ok");
  const cancel = document.getElementById("confirm-cancel");
  okButton.textContent = ok;
  return new Promise((resolve) => {
    const done = (v) => {
      okButton.removeEventListener("click", onOK);
      cancel.removeEventListener("click", onCancel);
      d.removeEventListener("cancel", onCancel);
      if (d.open) d.close();
      resolve(v);
    };
    const onOK = () => done(true);
    const onCancel = (ev) => { ev.preventDefault(); done(false); };
    okButton.addEventListener("click", onOK);
    cancel.addEventListener("click", onCancel);
    d.addEventListener("cancel", onCancel);
    d.showModal();
    cancel.focus();
  });
}
