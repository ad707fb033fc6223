package fetch

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
	"github.com/rfc1738/fetch/warc"
)

// fakeHTTP answers like the http driver from a kept connection to nginx:
// a 10-byte file whose bytes differ from one path to the next (as in a
// mirror: every capture is new, none a revisit), and the exchange's bytes
// when asked for them.
type fakeHTTP struct{}

const (
	fakeRequest  = "GET /many/f0001.txt HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: fetch\r\n\r\n"
	fakeResponse = "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Wed, 25 Nov 2026 06:00:00 GMT\r\nContent-Type: text/plain\r\nContent-Length: 10\r\nLast-Modified: Wed, 25 Nov 2026 05:00:00 GMT\r\nConnection: keep-alive\r\nETag: \"6925c3a0-a\"\r\nAccept-Ranges: bytes\r\n\r\n"
)

func (fakeHTTP) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	body := u.Path[len(u.Path)-min(10, len(u.Path)):]
	resp := &proto.Response{Kind: proto.KindData, Body: io.NopCloser(strings.NewReader(body)), Size: int64(len(body)), MediaType: "text/plain"}
	if req.Options.HTTP.Exchange {
		resp.Exchange = &proto.Exchange{Request: []byte(fakeRequest), Response: []byte(fakeResponse), Status: 200}
	}
	return resp, nil
}

// BenchmarkCapture: what archiving adds to the fetch of a small HTTP file,
// without the network (a fake driver): the capture (exchange, tee,
// commit) and the writer's records and index line. Run with -cpu 1 so
// that ns/op counts the writer's goroutine too.
func BenchmarkCapture(b *testing.B) {
	for _, archive := range []bool{false, true} {
		name := "plain"
		if archive {
			name = "warc"
		}
		b.Run(name, func(b *testing.B) {
			reg := NewRegistry()
			reg.Register("http", fakeHTTP{})
			c := &Client{Registry: reg}
			c.Policy.AllowPorts = []int{8080}
			if archive {
				w, err := warc.Create(warc.Options{Name: filepath.Join(b.TempDir(), "b"), CDX: true})
				if err != nil {
					b.Fatal(err)
				}
				defer w.Close()
				c.WARC = w
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				resp, err := c.Fetch(b.Context(), "http://127.0.0.1:8080/many/f"+strconv.Itoa(10000000+i)+".txt", nil)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				if err := resp.Body.Close(); err != nil {
					b.Fatal(err)
				}
			}
			if c.WARC != nil {
				if err := c.WARC.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
