package file_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/file"
	"github.com/rfc1738/fetch/uri"
)

// The Driver opens a file of this machine named by a file URL (an empty
// host, RFC 1738 section 3.10) and streams it; List gives a directory's entries.
func ExampleDriver_Fetch() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello, file\n"), 0o644)

	var d file.Driver
	base := "file://" + uri.Escape(filepath.ToSlash(dir), "/")
	resp, err := d.Fetch(context.Background(), uri.MustParse(base+"/notes.txt"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("%s, %d bytes: %s", resp.Name, resp.Size, b)

	entries, _, err := proto.ListAll(context.Background(), &d, uri.MustParse(base+"/"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		fmt.Println(e.Type, e.Name, e.Size)
	}
	// Output:
	// notes.txt, 12 bytes: hello, file
	// file notes.txt 12
}
