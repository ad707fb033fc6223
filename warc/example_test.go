package warc_test

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rfc1738/fetch/warc"
)

// Create makes a Writer for a run; each retrieval is a Recorder that gets
// the bytes as they arrive and writes the records on Commit. Close ends
// the file and writes the CDXJ index beside it.
func ExampleCreate() {
	dir, _ := os.MkdirTemp("", "example-warc-")
	defer os.RemoveAll(dir)
	w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "run"), CDX: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range []string{"ftp://127.0.0.1/pub/README", "ftp://127.0.0.1/pub/COPY-OF-README"} {
		r, err := w.Begin(warc.Capture{URI: u, Date: time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC), ContentType: "text/plain"})
		if err != nil {
			fmt.Println(err)
			return
		}
		io.WriteString(r, "hello\n")
		if err := r.Commit(); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range w.Files() {
		fmt.Println(filepath.Base(f), recordTypes(f))
	}
	idx, _ := os.ReadFile(filepath.Join(dir, "run.cdxj"))
	for line := range strings.Lines(string(idx)) {
		if l, ok, _ := warc.ParseIndexLine(line); ok {
			fmt.Println(l.URL, l.Date.Format(time.DateOnly), l.Mime)
		}
	}
	// Output:
	// run.warc.gz [warcinfo resource revisit]
	// ftp://127.0.0.1/pub/COPY-OF-README 1994-12-20 warc/revisit
	// ftp://127.0.0.1/pub/README 1994-12-20 text/plain
}

// recordTypes lists the WARC-Type of each record of a .warc.gz file.
func recordTypes(name string) []string {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	z, err := gzip.NewReader(f) // reads the members one after another
	if err != nil {
		return nil
	}
	var types []string
	sc := bufio.NewScanner(z)
	for sc.Scan() {
		if t, ok := strings.CutPrefix(sc.Text(), "WARC-Type: "); ok {
			types = append(types, strings.TrimSpace(t))
		}
	}
	return types
}
