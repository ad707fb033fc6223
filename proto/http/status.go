package http

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// StatusError is a reply whose status is neither 2xx nor a redirect. It
// wraps proto.ErrNotFound, proto.ErrLogin or proto.ErrPermission when the
// status means that, and keeps the server's status line.
type StatusError struct {
	Code   int    // 404
	Status string // "404 Not Found"
	err    error

	// RetryAfter is the wait the server asked for in a Retry-After header
	// (RFC 9110 section 10.2.3), from the time of the reply; zero when it
	// gave none, or a time already past.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string { return "http: " + e.Status }

// Unwrap returns the class of the refusal (proto.ErrNotFound,
// proto.ErrLogin, proto.ErrPermission), or proto.ErrTransient for a reply
// that says "try again later": 408 (RFC 9110 section 15.5.9), 429 (RFC
// 6585 section 4) and 5xx, a failure of the server, not of the request
// (RFC 9110 section 15.6).
func (e *StatusError) Unwrap() error {
	if e.err == nil && (e.Code == http.StatusRequestTimeout || e.Code == http.StatusTooManyRequests || e.Code >= 500 && e.Code <= 599) {
		return proto.ErrTransient
	}
	return e.err
}

// RetryDelay returns RetryAfter: the retry policy waits that long before
// its next attempt (it asks any error for this method).
func (e *StatusError) RetryDelay() time.Duration { return e.RetryAfter }

// statusErr classifies a failed reply (RFC 9110 section 15).
func statusErr(code int, status string) *StatusError {
	e := &StatusError{Code: code, Status: status}
	switch code {
	case http.StatusNotFound, http.StatusGone:
		e.err = proto.ErrNotFound
	case http.StatusUnauthorized, http.StatusProxyAuthRequired:
		e.err = proto.ErrLogin
	case http.StatusForbidden:
		e.err = proto.ErrPermission
	}
	return e
}

// response turns a reply into a proto.Response, a *proto.Redirect or an
// error. offset is the byte the request asked to start at.
func response(target *url.URL, hreq *http.Request, hresp *http.Response, offset int64) (*proto.Response, error) {
	code := hresp.StatusCode
	modTime, _ := http.ParseTime(hresp.Header.Get("Last-Modified")) // zero when there is none
	switch {
	case code == http.StatusNotModified && hreq.Header.Get("If-Modified-Since") != "":
		// RFC 9110 section 15.4.5: no content; the stored copy is current.
		hresp.Body.Close()
		return &proto.Response{Kind: proto.KindData, Body: http.NoBody, Size: -1, NotModified: true, ModTime: modTime}, nil
	case code >= 300 && code < 400:
		return nil, redirect(target, hresp)
	case code == http.StatusRequestedRangeNotSatisfiable && offset > 0:
		return complete(hresp, offset)
	case code < 200 || code >= 300:
		e := statusErr(code, hresp.Status)
		e.RetryAfter = retryAfter(hresp.Header.Get("Retry-After"), time.Now())
		return nil, e
	}
	resp := &proto.Response{
		Kind:      proto.KindData,
		Body:      hresp.Body,
		Size:      hresp.ContentLength,
		MediaType: mediaType(hresp.Header.Get("Content-Type")),
		ModTime:   modTime,
	}
	if hreq.Method == http.MethodHead {
		hresp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(headerText(hresp)))
		resp.Size = -1
		return resp, nil
	}
	if code == http.StatusPartialContent {
		return partial(resp, hresp, offset)
	}
	return resp, nil
}

// redirect is the *proto.Redirect of a 3xx reply; its Location is resolved
// against the request URL (RFC 9110 section 10.2.2).
func redirect(target *url.URL, hresp *http.Response) error {
	loc := hresp.Header.Get("Location")
	if loc == "" {
		return statusErr(hresp.StatusCode, hresp.Status)
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return &proto.ProtocolError{Proto: "http", Msg: "malformed Location header"}
	}
	return &proto.Redirect{URL: target.ResolveReference(ref).String(), Reason: hresp.Status, Limited: true}
}

// partial checks a 206 reply against the requested offset (RFC 9110
// section 14.4: Content-Range "bytes first-last/complete").
func partial(resp *proto.Response, hresp *http.Response, offset int64) (*proto.Response, error) {
	first, total, ok := contentRange(hresp.Header.Get("Content-Range"))
	if !ok || first != offset {
		return nil, &proto.ProtocolError{Proto: "http", Msg: "206 reply with a Content-Range that does not start at the requested offset"}
	}
	resp.Offset = offset
	resp.Size = total
	return resp, nil
}

// complete handles 416 to a resume request: when the resource is exactly
// offset bytes long the transfer is already complete and the body is empty.
func complete(hresp *http.Response, offset int64) (*proto.Response, error) {
	hresp.Body.Close()
	cr := hresp.Header.Get("Content-Range")
	total, ok := decimal(strings.TrimPrefix(cr, "bytes */"))
	if !strings.HasPrefix(cr, "bytes */") || !ok || total != offset {
		return nil, statusErr(hresp.StatusCode, hresp.Status)
	}
	return &proto.Response{Kind: proto.KindData, Body: http.NoBody, Size: total, Offset: offset}, nil
}

// contentRange parses "bytes first-last/complete"; complete is -1 for "*".
// Positions are unsigned decimal numbers (RFC 9110 section 14.4).
func contentRange(s string) (first, total int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, size, found := strings.Cut(rest, "/")
	firstS, lastS, found2 := strings.Cut(rng, "-")
	first, ok = decimal(firstS)
	last, ok2 := decimal(lastS)
	// last < first, or last >= complete, is invalid: not to be joined to
	// what is stored (RFC 9110 section 14.4).
	if !found || !found2 || !ok || !ok2 || last < first {
		return 0, 0, false
	}
	if size == "*" {
		return first, -1, true
	}
	total, ok = decimal(size)
	if !ok || total <= last {
		return 0, 0, false
	}
	return first, total, true
}

// maxRetryAfter bounds what retryAfter returns: a server's say is not a
// reason to wait for days.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads a Retry-After value (RFC 9110 section 10.2.3):
// delay-seconds, or an HTTP-date from which now is subtracted. It returns
// zero for a value that is neither, or a date not after now.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	// ParseUint takes digits only, and gives its largest value, with
	// ErrRange, for more than it holds: longer than the bound, not zero.
	if n, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return time.Duration(min(n, uint64(maxRetryAfter/time.Second))) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil || !t.After(now) {
		return 0
	}
	return min(t.Sub(now), maxRetryAfter)
}

// decimal parses an unsigned decimal number that fits an int64.
func decimal(s string) (int64, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// headerText is the status line and headers of a reply, as received.
func headerText(hresp *http.Response) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s\r\n", hresp.Proto, hresp.Status)
	hresp.Header.Write(&b)
	b.WriteString("\r\n")
	return b.Bytes()
}
