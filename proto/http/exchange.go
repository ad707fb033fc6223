package http

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"

	"github.com/rfc1738/fetch/proto"
)

// exchange records the request as the transport writes it, for
// Request.Options.HTTP.Exchange (an archive record, package warc): the
// request line, then each header field in the order and form the
// transport wrote it (httptrace reports every field: Host, User-Agent,
// the rest). The transport writes from a goroutine of its own, hence the
// lock; wrote is closed once the whole request is written.
type exchange struct {
	mu    sync.Mutex
	req   []byte
	wrote chan struct{}
	once  sync.Once
}

// trace returns ctx with a client trace that records hreq's header into
// x as it is written.
func (x *exchange) trace(ctx context.Context, hreq *http.Request) context.Context {
	x.wrote = make(chan struct{})
	x.req = make([]byte, 0, 256)
	x.req = append(x.req, hreq.Method...)
	x.req = append(x.req, ' ')
	x.req = append(x.req, hreq.URL.RequestURI()...)
	x.req = append(x.req, " HTTP/1.1\r\n"...)
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteHeaderField: func(key string, values []string) {
			x.mu.Lock()
			for _, v := range values {
				x.req = append(x.req, key...)
				x.req = append(x.req, ": "...)
				x.req = append(x.req, v...)
				x.req = append(x.req, "\r\n"...)
			}
			x.mu.Unlock()
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			x.once.Do(func() { close(x.wrote) })
		},
	})
}

// request returns the request's bytes through the blank line that ends
// its header. It waits for the transport to have written it all, which
// it has when a response came back; ctx bounds the wait all the same.
func (x *exchange) request(ctx context.Context) []byte {
	select {
	case <-x.wrote:
	case <-ctx.Done():
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return append(x.req[:len(x.req):len(x.req)], "\r\n"...)
}

// recordExchange fills resp.Info with the exchange's bytes: "http_request"
// (the request as the transport wrote it, see exchange), "http_response"
// (the status line and header, through the blank line) and "http_status"
// (int).
//
// The response header is the one net/http parsed: field names in
// canonical case and sorted, and Transfer-Encoding left out, because the
// body that follows is the decoded one (no chunk framing).
func recordExchange(ctx context.Context, x *exchange, resp *proto.Response, hresp *http.Response) {
	var rs bytes.Buffer
	rs.Grow(512)
	rs.WriteString("HTTP/")
	rs.WriteString(strconv.Itoa(hresp.ProtoMajor))
	rs.WriteByte('.')
	rs.WriteString(strconv.Itoa(hresp.ProtoMinor))
	rs.WriteByte(' ')
	rs.WriteString(hresp.Status)
	rs.WriteString("\r\n")
	hresp.Header.Write(&rs)
	rs.WriteString("\r\n")
	if resp.Info == nil {
		resp.Info = map[string]any{}
	}
	resp.Info["http_request"] = string(x.request(ctx))
	resp.Info["http_response"] = rs.String()
	resp.Info["http_status"] = hresp.StatusCode
}
