package mirror

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncWritten puts the files rels, written below root, on stable storage
// (a variable for the tests): on Linux one syncfs(2) of the target's file
// system, which writes its dirty data and metadata, renames and links
// included (and other writers' on that file system too). It costs far less
// than an fsync per article: BENCHMARKS.md, "News: articles on stable
// storage".
var syncWritten = syncFS

func syncFS(root *os.Root, _ []string) error {
	d, err := root.Open(".")
	if err != nil {
		return fmt.Errorf("mirror: sync articles: %w", err)
	}
	defer d.Close()
	if err := unix.Syncfs(int(d.Fd())); err != nil {
		return fmt.Errorf("mirror: sync articles: syncfs: %w", err)
	}
	return nil
}
