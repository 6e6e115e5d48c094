package permission

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// fold maps a name to the skeleton it is compared by, so that names which
// look alike compare equal: case is dropped, fullwidth and mathematical
// letters become ASCII, Cyrillic and Greek look-alikes become their Latin
// twins, accents and invisible characters disappear, and the ASCII pairs a
// reader confuses (0/o, 1/l/i) share one letter. Both the patterns and the
// paths go through fold, so the mapping only has to be consistent, not pretty.
// Glob metacharacters are ASCII punctuation and pass through unchanged.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			b.WriteByte(foldASCII(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			// Keep undecodable bytes distinct from everything else.
			b.WriteByte(c)
			continue
		}
		if invisible(r) {
			continue
		}
		if m, ok := foldRune(r); ok {
			if m != 0 {
				b.WriteByte(foldASCII(m))
			}
			continue
		}
		if l := unicode.ToLower(r); l < utf8.RuneSelf {
			b.WriteByte(foldASCII(byte(l))) // e.g. the Kelvin sign, dotted capital I
		} else {
			b.WriteRune(l)
		}
	}
	return b.String()
}

// foldASCII lowercases and merges the ASCII characters that are easy to
// mistake for one another in a file name.
func foldASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	switch c {
	case '0':
		return 'o'
	case '1', 'i', '|':
		return 'l'
	}
	return c
}

// invisible reports characters that render as nothing: zero-width spaces and
// joiners, direction marks, the soft hyphen, variation selectors, combining
// marks (an accent written as a separate code point) and the BOM.
func invisible(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x034F, r == 0x061C, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r == 0x180E, r == 0x3164, r == 0xFEFF, r == 0xFFA0:
		return true
	case 0x0300 <= r && r <= 0x036F, 0x1AB0 <= r && r <= 0x1AFF, 0x1DC0 <= r && r <= 0x1DFF,
		0x20D0 <= r && r <= 0x20FF, 0xFE20 <= r && r <= 0xFE2F:
		return true
	case 0x200B <= r && r <= 0x200F, 0x202A <= r && r <= 0x202E, 0x2060 <= r && r <= 0x206F,
		0xFE00 <= r && r <= 0xFE0F, 0xE0100 <= r && r <= 0xE01EF, 0xE0000 <= r && r <= 0xE007F:
		return true
	}
	return false
}

// foldRune maps one non-ASCII rune to ASCII when it is a look-alike. ok is
// false when the rune has no ASCII twin; m is 0 when the rune should vanish.
func foldRune(r rune) (m byte, ok bool) {
	switch {
	case 0xFF01 <= r && r <= 0xFF5E: // fullwidth ASCII
		return byte(r - 0xFEE0), true
	case 0x1D400 <= r && r <= 0x1D6A3: // mathematical alphanumeric letters
		idx := (r - 0x1D400) % 52
		if idx < 26 {
			return byte('a' + idx), true
		}
		return byte('a' + idx - 26), true
	case 0x1D7CE <= r && r <= 0x1D7FF: // mathematical digits
		return byte('0' + (r-0x1D7CE)%10), true
	case 0x24B6 <= r && r <= 0x24CF: // circled capitals
		return byte('a' + r - 0x24B6), true
	case 0x24D0 <= r && r <= 0x24E9: // circled small letters
		return byte('a' + r - 0x24D0), true
	case 0x2460 <= r && r <= 0x2468: // circled digits 1-9
		return byte('1' + r - 0x2460), true
	case 0x2070 <= r && r <= 0x2079, 0x2080 <= r && r <= 0x2089: // super- and subscript digits
		if r == 0x2071 {
			return 'i', true
		}
		return byte('0' + (r-0x2070)%16), true
	}
	if m, found := confusables[unicode.ToLower(r)]; found {
		return m, true
	}
	return 0, false
}

// confusables holds the hand-picked look-alikes: Latin letters with accents,
// Cyrillic, Greek and Armenian letters that render like Latin ones, small
// capitals, and the dashes, dots and slashes that pass for ASCII ones. Keys
// are lower case because foldRune lowers the rune first.
var confusables = func() map[rune]byte {
	groups := map[byte]string{
		'a': "àáâãäåāăąǎǟǡǻȁȃȧаɑαᴀ",
		'b': "ƀɓвβʙᖯ",
		'c': "çćĉċčƈсϲᴄ",
		'd': "ďđɗԁᴅ",
		'e': "èéêëēĕėęěȅȇȩеёεᴇ℮",
		'f': "ƒϝ",
		'g': "ĝğġģǥǧɠɡց",
		'h': "ĥħһհηнʜ",
		'i': "ìíîïĩīĭįıǐȉȋіїιɩ",
		'j': "ĵǰјϳ",
		'k': "ķĸкκᴋ",
		'l': "ĺļľŀłƚӏʟ",
		'm': "мμᴍ",
		'n': "ñńņňŉŋոνɴ",
		'o': "òóôõöøōŏőǒǫȍȏȯоοσօᴏ",
		'p': "рρᴘ",
		'q': "ԛգ",
		'r': "ŕŗřȑȓгʀ",
		's': "śŝşšșѕʂ",
		't': "ţťŧțтτᴛ",
		'u': "ùúûüũūŭůűųǔսυᴜ",
		'v': "νѵᴠ",
		'w': "ŵԝѡᴡ",
		'x': "хχ",
		'y': "ýÿŷуүγ",
		'z': "źżžƶᴢ",
		'-': "‐‑‒–—―−﹣⁃",
		'.': "․‧∙·﹒",
		'/': "∕⁄⧸",
		'_': "ˍ",
		'1': "¹",
		'2': "²",
		'3': "³",
	}
	m := make(map[rune]byte, 400)
	for ascii, runes := range groups {
		for _, r := range runes {
			m[r] = ascii
		}
	}
	return m
}()

// foldPath folds a slash-separated path component by component and drops
// what Windows ignores at the end of a name (trailing dots and spaces) and an
// NTFS stream suffix ("name:stream"), so "CLAIM-LEDGER.md." and
// "CLAIM-LEDGER.md::$DATA" fold like the ledger itself.
func foldPath(p string) string {
	f := fold(p)
	if !strings.ContainsAny(f, ". :") {
		return f
	}
	parts := strings.Split(f, "/")
	for i, c := range parts {
		if i == 0 && len(c) == 2 && c[1] == ':' {
			continue // drive letter
		}
		if j := strings.IndexByte(c, ':'); j > 0 {
			c = c[:j]
		}
		if t := strings.TrimRight(c, ". "); t != "" && c != "." && c != ".." {
			c = t
		}
		parts[i] = c
	}
	return strings.Join(parts, "/")
}
