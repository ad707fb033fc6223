package nntp

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// BenchmarkArticle streams a 16 MiB article of 72-byte lines through the
// driver from an in-memory server.
func BenchmarkArticle(b *testing.B) {
	line := strings.Repeat("x", 70) + "\r\n"
	art := "201 hi\r\n201 ok\r\n220 0 <a@b>\r\nSubject: big\r\n\r\n" + strings.Repeat(line, 16<<20/len(line)) + ".\r\n"
	u := uri.MustParse("news:a@b")
	b.SetBytes(int64(len(art)))
	for b.Loop() {
		conn := &fakeConn{r: strings.NewReader(art)}
		req := &proto.Request{
			Dial:    func(context.Context, string, string) (net.Conn, error) { return conn, nil },
			Options: withServer("127.0.0.1"),
		}
		resp, err := (&Driver{}).Fetch(context.Background(), u, req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}
