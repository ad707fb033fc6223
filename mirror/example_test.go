package mirror_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/mirror"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// Run mirrors an FTP tree (here one served in-process on 127.0.0.1)
// through a Fetcher: a protocol driver as here, or, with the safety policy
// and every scheme, fetch.Client.Mirror. The local tree gets the files and
// DIR/.fetch/manifest.json.
func ExampleRun() {
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "/pub/README", []byte("hello\n"), 0o644)
	afero.WriteFile(mem, "/pub/src/main.c", []byte("int main(void) { return 0; }\n"), 0o644)
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "example-run-")
	defer os.RemoveAll(dir)

	d := &ftp.Driver{}
	defer d.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := uri.MustParse("ftp://" + srv.Addr() + "/pub/")
	s, err := mirror.Run(ctx, d, start, dir, mirror.Options{Jobs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("new %d, failed %d, %d bytes\n", s.New, s.Failed, s.Bytes)
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			fmt.Println(filepath.ToSlash(rel))
		}
		return err
	})
	// Output:
	// new 2, failed 0, 35 bytes
	// .fetch/manifest.json
	// .fetch/reserve
	// README
	// src/main.c
}
