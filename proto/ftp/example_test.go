package ftp_test

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// The Driver retrieves a file from an FTP server (here one in-process on
// 127.0.0.1, anonymous login); ";type=i" asks for the stored bytes.
func ExampleDriver_Fetch() {
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "/pub/hello.txt", []byte("hello, ftp\r\n"), 0o644)
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	d := &ftp.Driver{}
	defer d.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := d.Fetch(ctx, uri.MustParse("ftp://"+srv.Addr()+"/pub/hello.txt;type=i"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("%q, size %d, type %s\n", b, resp.Size, resp.Info["ftp_type"])
	// Output: "hello, ftp\r\n", size 12, type I
}
