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
	if !abbreviable(s) {
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
	host, ok := abbrevHost(s[:end])
	if !ok {
		return nil, false
	}
	scheme := abbrevScheme(host)
	if scheme == "" {
		return nil, false
	}
	return parseAbbrev(scheme + "://" + s)
}

// abbreviable reports whether s may be an abbreviated address: not
// empty, without white space or controls, with no scheme (a "scheme:"
// with a dot in it is a host and port), and not a path.
func abbreviable(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) || IsControl(s[i]) {
			return false
		}
	}
	if n := schemeLen(s); n > 0 && !strings.Contains(s[:n], ".") {
		return false
	}
	return s[0] != '/' && s[0] != '.'
}

// abbrevHost returns the host of hostport, which must be a DNS name,
// optionally followed by ":port" with a port of digits.
func abbrevHost(hostport string) (string, bool) {
	host := hostport
	if i := strings.IndexByte(hostport, ':'); i >= 0 {
		host = hostport[:i]
		if port := hostport[i+1:]; port == "" || strings.Trim(port, "0123456789") != "" {
			return "", false
		}
	}
	return host, isDNSName(host)
}

// abbrevScheme returns the scheme that host's first label gives, or "".
func abbrevScheme(host string) string {
	first := lowerASCII(host[:strings.IndexByte(host, '.')])
	switch {
	case strings.HasPrefix(first, "www"):
		return "http"
	case first == "ftp":
		return "ftp"
	case first == "gopher":
		return "gopher"
	}
	return ""
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
