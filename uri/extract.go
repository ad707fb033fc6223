package uri

import "strings"

// Match is one URL found in free text by FindAll.
type Match struct {
	// URL is the URL as found, without its wrapper, without a "URL:"
	// prefix and with the whitespace inside the brackets removed.
	URL string
	// Start and End are the byte offsets of the match in the text,
	// wrapper included: text[Start:End].
	Start, End int
	// Wrapped reports a URL found inside "<" and ">".
	Wrapped bool
	// NoHyphen is URL without the hyphens that stood immediately before a
	// line break inside the brackets; empty when there were none. Seed
	// 001 Appendix B and seed 003 Appendix E: a typesetter may have added
	// such a hyphen, so it "may or may not actually be part of the URL".
	// URL keeps it (a writer following the appendices never breaks a line
	// after a hyphen that is not part of the URL); NoHyphen is the other
	// reading, set only when it parses.
	NoHyphen string
}

// Extract returns the URLs found in text, in order of appearance. It is
// FindAll reduced to the URLs.
func Extract(text string) []string {
	ms := FindAll(text)
	if len(ms) == 0 {
		return nil
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.URL
	}
	return out
}

// FindAll finds URLs in free text by the recommendations of seed 001
// Appendix B and seed 003 (RFC 2396) Appendix E:
//
//   - "<URL:...>" and "<...>" are wrappers that are not part of the URL. All
//     whitespace inside them (spaces, tabs, line breaks) is removed, as are
//     the "URL:" prefix (any case, with or without a space after it). A
//     bracketed text counts when it starts with "URL:" or, right after the
//     "<", with a scheme name and its ":" ("<joe@host>" and "<b>" do not);
//     it ends at the first ">" and contains no "<".
//   - A hyphen before a line break inside brackets is kept in URL and
//     dropped in Match.NoHyphen (see there).
//   - Outside brackets, a URL starts at one of the scheme names of RFC 1738
//     (ftp, http, gopher, mailto, news, nntp, telnet, wais, file,
//     prospero) or https, in any case, optionally after "URL:", where the
//     preceding character cannot be part of a scheme name. It ends before
//     whitespace, a control character, or one of <, >, " (the delimiters
//     of seed 001 section 2.3.3) and {, }, |, \, ^, ` (unwise). Trailing
//     punctuation (. , ; : ! ? ') is not taken, nor a ")" or "]" without
//     its opening partner inside the URL. Whitespace and hyphens at line
//     breaks are not treated specially there: without brackets a URL
//     cannot be told from the words after it.
//
// Only candidates that Parse accepts are returned; outside brackets, no URL
// is looked for inside a candidate that Parse rejects, which keeps the scan
// linear. text is not modified.
func FindAll(text string) []Match {
	var ms []Match
	for i := 0; i < len(text); {
		if text[i] == '<' {
			if m, ok := bracketed(text, i); ok {
				ms = append(ms, m)
				i = m.End
				continue
			}
			i++
			continue
		}
		if isAlpha(text[i]) && (i == 0 || !isSchemeChar(text[i-1])) {
			m, next := bare(text, i)
			if m.URL != "" {
				ms = append(ms, m)
			}
			if next > i {
				i = next
				continue
			}
		}
		i++
	}
	return ms
}

func isSchemeChar(c byte) bool { return isAlnum(c) || c == '+' || c == '-' || c == '.' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// hasURLPrefix reports whether s starts with "URL:" in any case.
func hasURLPrefix(s string) bool { return len(s) >= 4 && strings.EqualFold(s[:4], "url:") }

// bracketed reads a "<...>" wrapper starting at text[start] == '<'.
func bracketed(text string, start int) (Match, bool) {
	end := -1
	for j := start + 1; j < len(text); j++ {
		if text[j] == '<' {
			return Match{}, false
		}
		if text[j] == '>' {
			end = j
			break
		}
	}
	if end < 0 {
		return Match{}, false
	}
	raw := text[start+1 : end]
	prefixed := hasURLPrefix(raw)
	if !prefixed && schemeLen(raw) <= 0 {
		return Match{}, false
	}
	var b, nh strings.Builder
	hyphen := false
	for j := 0; j < len(raw); j++ {
		c := raw[j]
		if isSpace(c) {
			continue
		}
		b.WriteByte(c)
		if c == '-' && breaksAfter(raw[j+1:]) {
			hyphen = true
			continue
		}
		nh.WriteByte(c)
	}
	s := b.String()
	if prefixed {
		s = s[4:]
	}
	if s == "" {
		return Match{}, false
	}
	if _, err := Parse(s); err != nil {
		return Match{}, false
	}
	m := Match{URL: s, Start: start, End: end + 1, Wrapped: true}
	if hyphen {
		alt := nh.String()
		if prefixed {
			alt = alt[4:]
		}
		if _, err := Parse(alt); err == nil && alt != "" {
			m.NoHyphen = alt
		}
	}
	return m, true
}

// breaksAfter reports whether s starts with a line break, after optional
// spaces and tabs.
func breaksAfter(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t':
		case '\n', '\r':
			return true
		default:
			return false
		}
	}
	return false
}

// textSchemes are the scheme names FindAll recognises outside brackets.
var textSchemes = [...]string{"ftp", "http", "https", "gopher", "mailto", "news", "nntp", "telnet", "wais", "file", "prospero"}

// webSchemes are the other schemes a web page links to: the WHATWG URL
// Standard's special ones that RFC 1738 lacks, javascript:, data:,
// about:, blob: and tel:.
var webSchemes = [...]string{"ws", "wss", "javascript", "data", "about", "blob", "tel"}

// LinkScheme reports whether a page's link of scheme s (case-insensitive)
// is a URL, never the name of a file: s is a scheme FindAll recognises or
// one of webSchemes.
func LinkScheme(s string) bool { return anyFold(textSchemes[:], s) || anyFold(webSchemes[:], s) }

func anyFold(list []string, s string) bool {
	for _, k := range list {
		if strings.EqualFold(s, k) {
			return true
		}
	}
	return false
}

// isTextDelim reports the characters that end a URL outside brackets.
func isTextDelim(c byte) bool {
	return c <= ' ' || c == 0x7f || strings.IndexByte("<>\"{}|\\^`", c) >= 0
}

// bare reads an unwrapped URL starting at text[start]. It returns the
// match (URL empty when there is none) and where to go on scanning: after
// the match, or after a candidate that does not parse (so that no text is
// scanned twice), or start when there was no candidate.
func bare(text string, start int) (Match, int) {
	from := start
	if hasURLPrefix(text[from:]) {
		from += 4
	}
	n := schemeLen(text[from:])
	if n <= 0 || !anyFold(textSchemes[:], text[from:from+n]) {
		return Match{}, start
	}
	end := from + n + 1
	for end < len(text) && !isTextDelim(text[end]) {
		end++
	}
	s := trimTrailing(text[from:end])
	if len(s) <= n+1 {
		return Match{}, start
	}
	if _, err := Parse(s); err != nil {
		return Match{}, end
	}
	return Match{URL: s, Start: start, End: from + len(s)}, from + len(s)
}

// trimTrailing drops the punctuation that ends a sentence rather than a URL.
func trimTrailing(s string) string {
	parens := strings.Count(s, "(") - strings.Count(s, ")")
	brackets := strings.Count(s, "[") - strings.Count(s, "]")
	for s != "" {
		c := s[len(s)-1]
		switch {
		case strings.IndexByte(".,;:!?'", c) >= 0:
		case c == ')' && parens < 0:
			parens++
		case c == ']' && brackets < 0:
			brackets++
		default:
			return s
		}
		s = s[:len(s)-1]
	}
	return s
}
