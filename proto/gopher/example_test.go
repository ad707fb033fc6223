package gopher_test

import (
	"context"
	"fmt"
	"testing/fstest"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/uri"
)

// The Driver fetches a menu (type 1) as a parsed directory: each item with
// its type, display string and URL (Entry.URL, ready to fetch), here from a server in-process on
// 127.0.0.1.
func ExampleDriver_Fetch() {
	srv, err := fetchtest.StartGopher(fstest.MapFS{
		"about.txt":    {Data: []byte("about\n")},
		"docs/rfc.txt": {Data: []byte("rfc\n")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	var d gopher.Driver
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := d.Fetch(ctx, uri.MustParse("gopher://"+srv.Addr()+"/1/"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.Kind == proto.KindDirectory)
	for _, e := range resp.Entries {
		fmt.Printf("%s %s\n", e.ItemType, e.Name)
	}
	// Output:
	// true
	// i Index of /
	// 0 about.txt
	// 1 docs
}
