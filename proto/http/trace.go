package http

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/internal/secret"
	"github.com/rfc1738/fetch/uri"
)

// tracer writes the transcript of one exchange: "> " lines for the request
// line and headers sent, "< " lines for the status line and headers
// received, "* " lines for notes. Credentials are redacted.
type tracer struct{ w io.Writer }

func (t tracer) note(msg string) {
	if t.w != nil {
		fmt.Fprintf(t.w, "* %s\n", msg)
	}
}

// request writes r's request line, as sent with the protocol version
// version, and headers.
func (t tracer) request(r *http.Request, version string) {
	if t.w == nil {
		return
	}
	fmt.Fprintf(t.w, "> %s %s %s\n", r.Method, r.URL.RequestURI(), version)
	fmt.Fprintf(t.w, "> Host: %s\n", r.Host)
	t.headers(">", r.Header)
}

func (t tracer) response(r *http.Response) {
	if t.w == nil {
		return
	}
	fmt.Fprintf(t.w, "< %s %s\n", r.Proto, r.Status)
	t.headers("<", r.Header)
}

func (t tracer) headers(dir string, h http.Header) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(t.w, "%s %s: %s\n", dir, k, redactHeader(k, v))
		}
	}
}

// redactHeader hides credentials: the value of Authorization and
// Proxy-Authorization after the scheme name, and passwords in URLs of
// Location and Content-Location.
func redactHeader(name, value string) string {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization":
		scheme, _, _ := strings.Cut(value, " ")
		return scheme + " " + secret.TraceMask
	case "location", "content-location":
		u, err := uri.Parse(value)
		if err != nil {
			return "(malformed URL not shown)"
		}
		return u.Redacted()
	}
	return value
}
