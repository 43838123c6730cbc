// Playing cards drawn as SVG from rank and suit: no images to load, sharp at any size.
// cardSvg("Ah") is the ace of hearts, cardSvg(null) a back, cardSvg("joker") a joker.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const SUITS = {
  // Each suit as a path in a 100 x 100 box.
  h: { color: "#c8102e", name: "hearts",
       d: "M50 92C22 68 4 50 4 30C4 14 16 5 29 5C39 5 46 11 50 19C54 11 61 5 71 5C84 5 96 14 96 30C96 50 78 68 50 92Z" },
  d: { color: "#c8102e", name: "diamonds", d: "M50 3L88 50L50 97L12 50Z" },
  s: { color: "#111", name: "spades",
       d: "M50 4C78 30 96 46 96 62C96 76 85 84 73 84C63 84 56 79 53 72C55 83 59 90 67 96H33C41 90 45 83 47 72C44 79 37 84 27 84C15 84 4 76 4 62C4 46 22 30 50 4Z" },
  c: { color: "#111", name: "clubs",
       d: "M50 8A19 19 0 1 1 49.9 8ZM26 40A19 19 0 1 1 25.9 40ZM74 40A19 19 0 1 1 73.9 40ZM46 52H54Q56 80 68 96H32Q44 80 46 52Z" },
};
const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function suitShape(suit, x, y, size) {
  const g = svgEl("g", { transform: `translate(${x} ${y}) scale(${size / 100})` });
  g.append(svgEl("path", { d: SUITS[suit].d, fill: SUITS[suit].color }));
  return g;
}

function cardSvg(card) {
  const svg = svgEl("svg", { viewBox: "0 0 60 84", class: "card", role: "img" });
  if (card === "joker") {
    svg.dataset.card = "joker";
    svg.setAttribute("aria-label", "joker");
    svg.append(svgEl("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fff", stroke: "#444" }));
    const t = svgEl("text", { x: 30, y: 50, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#6a1b9a" });
    t.textContent = "JOKER";
    svg.append(t);
    return svg;
  }
  if (!card) {
    svg.dataset.card = "back";
    svg.setAttribute("aria-label", "card face down");
    svg.append(svgEl("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#1d3f8f", stroke: "#fff", "stroke-width": 2 }));
    svg.append(svgEl("rect", { x: 6, y: 6, width: 48, height: 72, rx: 4, fill: "#2f5bc0", stroke: "#fff", "stroke-width": 1.5 }));
    svg.append(svgEl("path", { d: "M30 14L48 42L30 70L12 42Z", fill: "none", stroke: "#fff", "stroke-width": 2 }));
    return svg;
  }
  const rank = card[0], suit = card[1];
  svg.dataset.card = card;
  svg.setAttribute("aria-label", `${RANKS[rank] || rank} of ${SUITS[suit].name}`);
  svg.append(svgEl("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fff", stroke: "#555" }));
  const label = svgEl("text", { x: 5, y: 24, "font-size": 22, "font-weight": 700, fill: SUITS[suit].color,
                                "font-family": "sans-serif" });
  label.textContent = RANKS[rank] || rank;
  svg.append(label, suitShape(suit, 6, 29, 15), suitShape(suit, 24, 44, 32));
  return svg;
}

window.cardSvg = cardSvg;
