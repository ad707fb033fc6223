package safety

import (
	"slices"
	"strings"

	"github.com/rfc1738/fetch/uri"

	"github.com/rfc1738/fetch/internal/secret"
)

// Redact masks, on a best-effort basis, the password in raw, a string that
// may not parse as a URL (use (*uri.URL).Redacted for one that does). After
// each "://" (and a leading "//"), the text between the first ":" of the
// user information and the last "@" before the next "/" becomes "xxxxx".
// When the server part holds a ":" but no "@", the password may itself
// contain a "/": the text from that ":" to the last "@" before the next
// white space is masked instead, which may also hide a port and a path.
// Text without a password is returned unchanged.
func Redact(raw string) string {
	spans := passwordSpans(raw)
	if len(spans) == 0 {
		return raw
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(raw[last:s[0]])
		b.WriteString(secret.URLMask)
		last = s[1]
	}
	b.WriteString(raw[last:])
	return b.String()
}

// passwordSpans returns the [start, end) byte ranges of raw that may hold a
// password (see Redact), in order and not overlapping.
func passwordSpans(raw string) [][2]int {
	var spans [][2]int
	add := func(from, to int) {
		if n := len(spans); n > 0 && from <= spans[n-1][1] {
			spans[n-1][1] = max(spans[n-1][1], to)
			return
		}
		spans = append(spans, [2]int{from, to})
	}
	if from, to, ok := schemelessLogin(raw); ok {
		add(from, to)
	}
	starts := []int{}
	if strings.HasPrefix(raw, "//") {
		starts = append(starts, 2)
	}
	for i := 0; ; {
		j := strings.Index(raw[i:], "://")
		if j < 0 {
			break
		}
		starts = append(starts, i+j+3)
		i += j + 3
	}
	for _, a := range starts {
		auth := raw[a:]
		if k := strings.IndexByte(auth, '/'); k >= 0 {
			auth = auth[:k]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			if c := strings.IndexByte(auth[:at], ':'); c >= 0 {
				add(a+c+1, a+at)
			}
			continue
		}
		c := strings.IndexByte(auth, ':')
		if c < 0 {
			continue
		}
		rest := raw[a+c+1:]
		if k := strings.IndexAny(rest, " \t\r\n"); k >= 0 {
			rest = rest[:k]
		}
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			add(a+c+1, a+c+1+at)
		}
	}
	return spans
}

// schemelessLogin finds the password of a login typed without
// "scheme://", "user:pass@host/p", as uri.URL.Redacted masks it
// (uri.OpaqueLoginEnd).
func schemelessLogin(raw string) (from, to int, ok bool) {
	name, rest, found := strings.Cut(raw, ":")
	if !found || strings.HasPrefix(rest, "/") || strings.ContainsAny(name, "/@") {
		return 0, 0, false
	}
	at := uri.OpaqueLoginEnd(name, rest)
	return len(name) + 1, len(name) + 1 + at, at >= 0
}

func inSpans(spans [][2]int, off int) bool {
	return slices.ContainsFunc(spans, func(s [2]int) bool { return s[0] <= off && off < s[1] })
}
