// Turn the React components of the CC0 npm package @letele/playing-cards into plain SVG files.
// Usage: node extract_svgs.mjs PATH/TO/package/dist/index.esm.js OUTDIR
// The package's components call React.createElement(tag, props, ...children); a stand-in for
// React that returns markup strings is enough to get each card's SVG back.
import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const [src, out] = process.argv.slice(2);
const escape = (v) => String(v).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
const attrName = (k) => (k === "className" ? "class" : k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()));
const keepCase = new Set(["viewBox", "preserveAspectRatio", "patternUnits", "gradientUnits",
  "gradientTransform", "patternTransform", "xlinkHref", "xmlSpace", "stdDeviation", "clipPathUnits"]);
function createElement(tag, props, ...children) {
  const attrs = Object.entries(props || {})
    .filter(([k, v]) => v !== undefined && v !== null && !k.startsWith("aria") && k !== "title")
    .map(([k, v]) => {
      let name = keepCase.has(k) ? k : attrName(k);
      if (k === "xlinkHref") name = "xlink:href";
      if (k === "xmlSpace") name = "xml:space";
      return `${name}="${escape(v)}"`;
    });
  const inner = children.flat().filter((c) => c !== null && c !== undefined && c !== false).join("");
  return `<${tag} ${attrs.join(" ")}>${inner}</${tag}>`;
}
const code = fs.readFileSync(src, "utf8")
  .replace(/^import _extends from .*$/m, "const _extends = Object.assign;")
  .replace(/^import \* as React from .*$/m, "const React = globalThis.__React;");
globalThis.__React = { createElement };
const tmp = path.join(out, "_cards.mjs");
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(tmp, code);
const mod = await import(url.pathToFileURL(path.resolve(tmp)).href);
for (const [name, component] of Object.entries(mod)) {
  let svg = component({});
  svg = svg.replace("<svg ", '<svg xmlns:xlink="http://www.w3.org/1999/xlink" ');
  fs.writeFileSync(path.join(out, `${name}.svg`), svg);
}
fs.unlinkSync(tmp);
