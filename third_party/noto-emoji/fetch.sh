#!/bin/sh
# Writes emoji.css: the few glyphs of Noto Emoji (monochrome) that the
# mutation-testing-elements viewer draws as icons, subset from npm's
# @fontsource/noto-emoji and embedded as @font-face rules of the family
# "Noto Color Emoji", the last of the viewer's font stack. Run it from this
# directory after upgrading the viewer (its icons are the H(`...`) calls
# of ../mutation-testing-elements/mutation-test-elements.js).
set -eu
here=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm init -y >/dev/null
npm install --silent @fontsource/noto-emoji@5.3.2 subset-font@2.9.0
cat >subset.mjs <<'JS'
import subsetFont from 'subset-font';
import fs from 'fs';
const icons = "👽🧪✅☂🌧🙈🤥⏰⌛💥🎯📖🗿🔼🔽🕵ℹ"; // Icons of emoji.go
const dir = 'node_modules/@fontsource/noto-emoji/files/';
const ranges = JSON.parse(fs.readFileSync('node_modules/@fontsource/noto-emoji/unicode.json'));
let css = '/* Noto Emoji (SIL OFL 1.1, see LICENSE): the glyphs the viewer draws as icons. Written by fetch.sh. */\n';
for (const [key, range] of Object.entries(ranges)) {
  const name = key.replace(/^\[|\]$/g, '');
  const src = fs.readFileSync(dir + 'noto-emoji-' + name + '-400-normal.woff2');
  const out = await subsetFont(src, icons, { targetFormat: 'woff2' });
  if (out.length < 700) continue; // none of the icons
  css += '@font-face{font-family:"Noto Color Emoji";font-display:block;src:url(data:font/woff2;base64,' +
    out.toString('base64') + ') format("woff2");unicode-range:' + range + '}\n';
}
fs.writeFileSync('emoji.css', css);
JS
node subset.mjs
cp emoji.css "$here/emoji.css"
