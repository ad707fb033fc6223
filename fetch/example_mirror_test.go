package fetch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing/fstest"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// Mirror copies a gopher hole (here one served in-process on 127.0.0.1)
// into a directory; a second run fetches only what changed: nothing.
func ExampleClient_Mirror() {
	srv, err := fetchtest.StartGopher(fstest.MapFS{
		"README.txt":       {Data: []byte("A tiny gopher hole.\n")},
		"docs/rfc1436.txt": {Data: []byte("The Internet Gopher Protocol\n")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "example-mirror-")
	defer os.RemoveAll(dir)

	var c fetch.Client
	defer c.CloseIdleConnections()
	for run := 1; run <= 2; run++ {
		s, err := c.Mirror(context.Background(), "gopher://"+srv.Addr()+"/1/", dir, fetch.MirrorOptions{Jobs: 2})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("run %d: new %d, unchanged %d, %d bytes\n", run, s.New, s.Unchanged, s.Bytes)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "docs", "rfc1436.txt"))
	fmt.Printf("docs/rfc1436.txt: %q\n", b)
	// Output:
	// run 1: new 2, unchanged 0, 49 bytes
	// run 2: new 0, unchanged 2, 0 bytes
	// docs/rfc1436.txt: "The Internet Gopher Protocol\n"
}
