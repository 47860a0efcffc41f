// The browser's visitor key, for an app served beyond one computer (collections/visitors.py):
// 64 random hex digits kept in this site's local storage, so that every tab of this browser
// finds the same collections and no other browser does. It goes to the server only as this
// component's state, over the session's own connection: never into the page, a link or a log.
// A browser that blocks the storage gets no key ("") and saves no collections.
const NAME = "paper-explorer.visitor-key";

function fresh() {
  const bytes = new Uint8Array(32);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function stored() {
  try {
    let key = window.localStorage.getItem(NAME);
    if (!/^[0-9a-f]{64}$/.test(key || "")) {
      key = fresh();
      window.localStorage.setItem(NAME, key);
    }
    return window.localStorage.getItem(NAME) === key ? key : "";
  } catch (error) {
    return ""; // storage blocked (a private window's setting, a policy)
  }
}

export default function (component) {
  component.setStateValue("browser_key", stored());
}
