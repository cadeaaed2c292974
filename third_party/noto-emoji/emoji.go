// Package emoji embeds the few glyphs of Noto Emoji that the
// mutation-testing-elements viewer draws as icons (see README.md), so
// that the HTML report shows them on a machine with no emoji font and no
// network.
package emoji

import _ "embed"

// CSS is the glyphs as @font-face rules of the family "Noto Color Emoji",
// the last of the viewer's font stack.
//
//go:embed emoji.css
var CSS string

// Icons are the glyphs CSS holds (fetch.sh subsets the font to the same).
// A page draws them once, out of sight, before the viewer does: a face
// loaded first by text in the viewer's shadow tree is not always drawn
// there.
const Icons = "👽🧪✅☂🌧🙈🤥⏰⌛💥🎯📖🗿🔼🔽🕵ℹ"
