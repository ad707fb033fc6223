package uri

import "strings"

// Abbreviated completes an abbreviated URL as a person would type it (seed
// 003, RFC 2396 Appendix F: "a reference consisting of only the authority
// and path portions of the identified resource", completed by
// "context-based heuristics"). It is a heuristic, meant only where no base
// URL is defined (a command line, a dialog box), never for references in
// documents, where the same text is a relative path. The rules, in order:
//
//  1. s must be non-empty and hold no whitespace or control character.
//  2. s must not already be a URL: a scheme name without a "." followed by
//     ":" ("http:", "mailto:") means it is one, and a leading "/" or "."
//     means a path. (A host name with a port, "www.example.com:80/",
//     looks like a scheme name with a "."; it is taken as a host.)
//  3. user@host, with one "@", no "/", "?", "#" or ":", and a host name
//     with at least two labels, becomes mailto:user@host.
//  4. Otherwise s must start with a host name of at least two labels
//     (letters, digits and "-"), optionally followed by ":port", then by
//     "/", "?", "#" or the end. Its first label decides the scheme, in any
//     case: a label starting with "www" gives http (the appendix's own
//     example), "ftp" gives ftp and "gopher" gives gopher. Any other host
//     (including "news." hosts: an nntp URL needs a group, and a news URL
//     names no server) is not completed.
//
// The completed text must then parse. The result and true are returned on
// success; nil and false otherwise.
func Abbreviated(s string) (*URL, bool) {
	if s == "" {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) || IsControl(s[i]) {
			return nil, false
		}
	}
	if n := schemeLen(s); n > 0 && !strings.Contains(s[:n], ".") {
		return nil, false
	}
	if s[0] == '/' || s[0] == '.' {
		return nil, false
	}
	if at := strings.IndexByte(s, '@'); at >= 0 {
		host := s[at+1:]
		if at == 0 || strings.ContainsAny(s, "/?#:") || strings.IndexByte(host, '@') >= 0 || !isDNSName(host) {
			return nil, false
		}
		return parseAbbrev("mailto:" + s)
	}
	end := strings.IndexAny(s, "/?#")
	if end < 0 {
		end = len(s)
	}
	hostport := s[:end]
	host := hostport
	if i := strings.IndexByte(hostport, ':'); i >= 0 {
		host = hostport[:i]
		port := hostport[i+1:]
		if port == "" {
			return nil, false
		}
		for j := 0; j < len(port); j++ {
			if !isDigit(port[j]) {
				return nil, false
			}
		}
	}
	if !isDNSName(host) {
		return nil, false
	}
	first := lowerASCII(host[:strings.IndexByte(host, '.')])
	var scheme string
	switch {
	case strings.HasPrefix(first, "www"):
		scheme = "http"
	case first == "ftp":
		scheme = "ftp"
	case first == "gopher":
		scheme = "gopher"
	default:
		return nil, false
	}
	return parseAbbrev(scheme + "://" + s)
}

func parseAbbrev(s string) (*URL, bool) {
	u, err := Parse(s)
	if err != nil {
		return nil, false
	}
	return u, true
}

// isDNSName reports whether h is a host name of two or more labels of
// letters, digits and "-" (RFC 1738 section 3.1, without the trailing "."
// of RFC 2396).
func isDNSName(h string) bool {
	labels := 0
	for h != "" {
		l, rest, found := strings.Cut(h, ".")
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' || found && rest == "" {
			return false
		}
		for i := 0; i < len(l); i++ {
			if !isAlnum(l[i]) && l[i] != '-' {
				return false
			}
		}
		labels++
		h = rest
	}
	return labels >= 2
}
