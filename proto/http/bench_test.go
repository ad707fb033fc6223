package http

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rfc1738/fetch/uri"
)

// BenchmarkExchange: what recording the exchange (Options.HTTP.Exchange,
// for an archive) adds to the fetch of a small file over a kept
// connection, as in a mirror of many small files. The server is in the
// same process: compare the two sub-benchmarks, not their absolute times.
func BenchmarkExchange(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"text/plain"}
		h["Last-Modified"] = []string{"Wed, 25 Nov 2026 05:00:00 GMT"}
		h["Etag"] = []string{`"6925c3a0-a"`}
		h["Accept-Ranges"] = []string{"bytes"}
		io.WriteString(w, "file 0001\n")
	}))
	defer srv.Close()
	u := uri.MustParse(srv.URL + "/many/f0001.txt")
	for _, record := range []bool{false, true} {
		name := "plain"
		if record {
			name = "exchange"
		}
		b.Run(name, func(b *testing.B) {
			d := New(Config{KeepAlive: true})
			defer d.CloseIdleConnections()
			req := testRequest()
			req.Options.HTTP.Exchange = record
			b.ReportAllocs()
			for b.Loop() {
				resp, err := d.Fetch(b.Context(), u, req)
				if err != nil {
					b.Fatal(err)
				}
				if record && resp.Exchange == nil {
					b.Fatal("no exchange recorded")
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
