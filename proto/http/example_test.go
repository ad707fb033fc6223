package http_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
	fetchhttp "github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/uri"
)

// The Driver answers a redirect with a *proto.Redirect, for the caller to
// check and follow, and streams the body of a 200 (a server on 127.0.0.1).
func ExampleDriver_Fetch() {
	mux := http.NewServeMux()
	mux.Handle("/old", http.RedirectHandler("/hello.txt", http.StatusMovedPermanently))
	mux.HandleFunc("/hello.txt", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello, http\n") })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	var d fetchhttp.Driver
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := d.Fetch(ctx, uri.MustParse(srv.URL+"/old"), nil)
	var r *proto.Redirect
	if !errors.As(err, &r) {
		fmt.Println("no redirect:", err)
		return
	}
	fmt.Println(r.Reason, "to", strings.TrimPrefix(r.URL, srv.URL))
	// A caller checks r.URL with package safety before it follows it, as
	// fetch.Client does.
	resp, err := d.Fetch(ctx, uri.MustParse(r.URL), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("%s, %d bytes: %s", resp.MediaType, resp.Size, b)
	// Output:
	// 301 Moved Permanently to /hello.txt
	// text/plain, 12 bytes: hello, http
}
