package proto_test

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// A driver that is a Lister gives a directory's entries without fetching
// its files: here the FTP driver, against a server in-process on
// 127.0.0.1 (MLSD, else LIST parsed whatever the server's system).
func ExampleLister() {
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "/pub/README", []byte("hello\n"), 0o644)
	mem.MkdirAll("/pub/src", 0o755)
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	d := &ftp.Driver{}
	defer d.CloseIdleConnections()
	var l proto.Lister = d
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Each entry comes as its line arrives.
	_, err = l.List(ctx, uri.MustParse("ftp://"+srv.Addr()+"/pub/"), nil, func(e proto.Entry) error {
		if e.Type == proto.EntryFile {
			fmt.Printf("%s %s, %d bytes\n", e.Type, e.Name, e.Size)
		} else {
			fmt.Printf("%s %s\n", e.Type, e.Name)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Output:
	// file README, 6 bytes
	// dir src
}
