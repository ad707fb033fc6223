package safety

import "github.com/rfc1738/fetch/uri"

// The package's tables and helpers, for its external tests.
var (
	BadPorts      = badPorts
	LinePorts     = linePorts
	PasswordSpans = passwordSpans
	RedactedURL   = redactedURL
)

// OtherProtocol is the service on port n that a URL of scheme must not
// reach under p, or "".
func OtherProtocol(p Policy, scheme string, n int) string { return otherProtocol(p.facts(scheme), n) }

// DefaultPort is the default port of scheme under p.
func DefaultPort(p Policy, scheme string) int { return p.facts(scheme).Port }

// PlacedPart is a Part placed in the URL as written.
type PlacedPart struct {
	Name, Text string
	Off        int // in the URL
}

// PartsAt returns the parts w gives for u, placed in raw, the text u was
// parsed from.
func PartsAt(u *uri.URL, raw string, w Wire) ([]PlacedPart, error) {
	ps, err := wireParts(u, newLayout(u, raw), w)
	out := make([]PlacedPart, len(ps))
	for i, p := range ps {
		out[i] = PlacedPart{Name: p.Name, Text: p.Text, Off: p.off}
	}
	return out, err
}

// LayoutOf returns the offsets of u's password, path and opaque part in
// raw, the text u was parsed from.
func LayoutOf(u *uri.URL, raw string) (pass, path, opaque int) {
	l := newLayout(u, raw)
	return l.pass, l.path, l.opaque
}
