package http

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/rfc1738/fetch/proto"
)

// recordExchange fills resp.Info with the exchange's bytes, for
// Request.Options.HTTP.Exchange (an archive record, package warc):
// "http_request" (the request as written: request line and header),
// "http_response" (the status line and header, through the blank line)
// and "http_status" (int).
//
// The header is the one net/http parsed: field names in canonical case
// and sorted, and Transfer-Encoding left out, because the body that
// follows is the decoded one (no chunk framing).
func recordExchange(resp *proto.Response, hreq *http.Request, hresp *http.Response) {
	var rq bytes.Buffer
	// Request.Write writes what the transport sends: request line, Host,
	// User-Agent and the header set here; no body.
	if err := hreq.Write(&rq); err != nil {
		rq.Reset()
	}
	var rs bytes.Buffer
	fmt.Fprintf(&rs, "HTTP/%d.%d %s\r\n", hresp.ProtoMajor, hresp.ProtoMinor, hresp.Status)
	hresp.Header.Write(&rs)
	rs.WriteString("\r\n")
	if resp.Info == nil {
		resp.Info = map[string]any{}
	}
	resp.Info["http_request"] = rq.String()
	resp.Info["http_response"] = rs.String()
	resp.Info["http_status"] = hresp.StatusCode
}
