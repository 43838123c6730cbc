#!/bin/sh
# Regenerate cards/*.png from the CC0 npm package @letele/playing-cards 0.1.0.
# Needs node, npm and rsvg-convert (Debian: librsvg2-bin) at generation time only.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
cd "$work"
npm pack @letele/playing-cards@0.1.0 >/dev/null
tar xzf letele-playing-cards-0.1.0.tgz
cp package/LICENSE "$here/LICENSE.txt"
node "$here/extract_svgs.mjs" package/dist/index.esm.js svg
mkdir -p "$here/cards"
for f in svg/[SHDC]*.svg; do
  name=$(basename "$f" .svg)
  suit=$(printf %s "$name" | cut -c1 | tr SHDC shdc)
  rank=$(printf %s "$name" | cut -c2- | tr a-z A-Z | sed 's/^10$/T/')
  rsvg-convert -w 120 -h 168 "$f" -o "$here/cards/$rank$suit.png"
done
rsvg-convert -w 120 -h 168 svg/B2.svg -o "$here/cards/back.png"
# The package's two jokers (J1 in colour, J2 in outline) are the deck's two joker designs.
rsvg-convert -w 120 -h 168 svg/J1.svg -o "$here/cards/joker.png"
rsvg-convert -w 120 -h 168 svg/J2.svg -o "$here/cards/joker2.png"
rm -rf "$work"
