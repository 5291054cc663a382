// For the example pages (embed.html, api.html): `?hub=<origin>` points their Hugging Face URLs
// at another Hub endpoint (a mirror, or the end-to-end tests' mock Hub). Runs before
// weightpeek.js defines the element, so each widget starts with the rewritten src.
const hub = new URLSearchParams(location.search).get("hub");
export const HUB = (hub || "https://huggingface.co").replace(/\/+$/, "");
/** A Hugging Face URL on the chosen endpoint. */
export const hubUrl = (url) => (hub ? url.replace(/^https:\/\/huggingface\.co/, HUB) : url);
for (const el of document.querySelectorAll("weightpeek-view[src]")) {
  el.setAttribute("src", hubUrl(el.getAttribute("src")));
  if (hub) el.setAttribute("endpoint", HUB);
}
