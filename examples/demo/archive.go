package main

import (
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing/fstest"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// The archive's texts, shared by the servers.
const (
	readme = "This is the fetch demo archive, served from memory by examples/demo.\n" +
		"Everything here is generated: nothing is read from or written to disk.\n"
	notes = "Notes on the demo archive\r\n" +
		"\r\n" +
		"These notes are stored with CRLF line ends, as a DOS host would keep them:\r\n" +
		"fetched with ;type=a they come out with the local line ends.\r\n"
	motd = "Welcome to the fetch demo FTP server.\n" +
		"This file is /etc/motd, outside /pub: reach it with %2F, ftp://HOST/%2Fetc/motd.\n"
	about = "About this gopher hole\n" +
		"\n" +
		"It is served by examples/demo with package fetchtest. Ask for this item's\n" +
		"Gopher+ attributes with the gopher+ string \"!\": ...about.txt%09%09!\n" +
		"Search it with a word or two: the type 7 item lists the texts that hold\n" +
		"one of the words.\n"
)

// bigSize is the size of /pub/big.iso: large enough to interrupt and
// resume (-C -).
const bigSize = 4 << 20

// modTime is the time of every file: fixed, so that mirrors are stable.
var modTime = time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)

// pubFiles are the files under /pub, by path.
func pubFiles() map[string][]byte {
	big := make([]byte, bigSize)
	x := uint32(1738)
	for i := range big {
		x = x*1664525 + 1013904223 // a fixed pseudo-random sequence
		big[i] = byte(x >> 24)
	}
	return map[string][]byte{
		"README":                []byte(readme),
		"README.txt":            []byte(readme),
		"notes":                 []byte(notes),
		"big.iso":               big,
		"docs/rfc1738.txt":      []byte("Uniform Resource Locators (URL)\nT. Berners-Lee, L. Masinter, M. McCahill\nDecember 1994\n"),
		"docs/rfc1436.txt":      []byte("The Internet Gopher Protocol\n(a distributed document search and retrieval protocol)\nMarch 1993\n"),
		"docs/with space.txt":   []byte("a name with a space\n"),
		"src/hello.c":           []byte("#include <stdio.h>\n\nint main(void) { puts(\"hello\"); return 0; }\n"),
		"src/lib/strings.c":     []byte("/* string helpers */\n"),
		"images/pixel.gif":      []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"),
		"incoming/.placeholder": nil,
	}
}

// ftpArchive is the FTP server's file system: /pub and /etc/motd.
func ftpArchive() afero.Fs {
	mem := afero.NewMemMapFs()
	for name, data := range pubFiles() {
		writeFile(mem, "/pub/"+name, data)
	}
	writeFile(mem, "/etc/motd", []byte(motd))
	// Directories get the files' time too, so that listings are the
	// same from run to run.
	afero.Walk(mem, "/", func(name string, fi fs.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			mem.Chtimes(name, modTime, modTime)
		}
		return nil
	})
	return mem
}

func writeFile(fsys afero.Fs, name string, data []byte) {
	// A MemMapFs does not fail on these: the paths are fixed and valid.
	afero.WriteFile(fsys, name, data, 0o644)
	fsys.Chtimes(name, modTime, modTime)
}

// mapFS is files as an fs.FS under dir ("" for the top).
func mapFS(files map[string][]byte, dir string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, data := range files {
		if name == "big.iso" || strings.HasSuffix(name, ".placeholder") {
			continue // a gopher hole or web tree of texts
		}
		m[path.Join(dir, name)] = &fstest.MapFile{Data: data, Mode: 0o644, ModTime: modTime}
	}
	return m
}

// startGopher serves the gopher hole: about.txt (with Gopher+
// attributes), the archive's texts under docs/ and src/, an +ASK form at
// /form and a type 7 search at /search.
func startGopher(port int) (*fetchtest.Gopher, error) {
	files := mapFS(pubFiles(), "")
	files["about.txt"] = &fstest.MapFile{Data: []byte(about), Mode: 0o644, ModTime: modTime}
	// The search's results name the server's own address, known once it
	// listens.
	var addr atomic.Pointer[string]
	srv, err := fetchtest.StartGopherWith(files, fetchtest.GopherOptions{
		Port: port,
		Items: map[string]fetchtest.GopherItem{
			"/about.txt": {Attributes: "+ADMIN:\n Admin: Demo Maintainer <demo@example.org>\n Mod-Date: Tue Dec 20 12:00:00 1994 <19941220120000>\n" +
				"+ABSTRACT:\n What this gopher hole is, and how to see the attributes of an item.\n" +
				"+VIEWS:\n text/plain: <1k>\n"},
			"/form": {Type: "0", Title: "Subscribe (a Gopher+ +ASK form)", Ask: []string{
				"Select: Subscribe to the demo's news?:0",
				"Ask: Your name?\tvisitor",
			}, Serve: answerForm},
			"/search": {Type: "7", Title: "Search the texts of this hole",
				Serve: func(q string, _ []string) []byte { return search(files, *addr.Load(), q) }},
		},
	})
	if err != nil {
		return nil, err
	}
	a := srv.Addr()
	addr.Store(&a)
	return srv, nil
}

// answerForm answers the +ASK form: its answers, or how to send them.
func answerForm(_ string, answers []string) []byte {
	if answers == nil {
		return []byte("This item is a Gopher+ +ASK form: fetch it with the gopher+ string \"?\"\n" +
			"(gopher://HOST:PORT/0/form%09%09?) and answer with --form NAME=VALUE.\n")
	}
	name, sub := "visitor", "not subscribed"
	if len(answers) > 1 && answers[1] != "" {
		name = answers[1]
	}
	if len(answers) > 0 && answers[0] == "1" {
		sub = "subscribed"
	}
	return []byte(fmt.Sprintf("Thank you, %s: %s.\n", name, sub))
}

// search returns a gopher menu of the texts (names included) that hold a
// word of q, case folded.
func search(files fstest.MapFS, hostPort, q string) []byte {
	host, port, _ := net.SplitHostPort(hostPort)
	words := strings.Fields(strings.ToLower(q))
	var names []string
	for name, f := range files {
		text := strings.ToLower(name + " " + string(f.Data))
		if slices.ContainsFunc(words, func(w string) bool { return strings.Contains(text, w) }) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "iTexts holding a word of %q: %d\t\terror.host\t1\r\n", q, len(names))
	for _, n := range names {
		fmt.Fprintf(&b, "0%s\t/%s\t%s\t%s\r\n", n, n, host, port)
	}
	b.WriteString(".\r\n")
	return []byte(b.String())
}

// newsServer has local.test (articles 1 to 3), comp.lang.go and
// comp.lang.c.
func newsServer() *fetchtest.NNTP {
	s := &fetchtest.NNTP{Over: "OVER", ListGroup: "range"}
	for i := int64(1); i <= 3; i++ {
		s.Post(article("local.test", i, fmt.Sprintf("Test article %d", i),
			fmt.Sprintf("This is test article %d of local.test.\n.a line that starts with a dot\n", i)), []string{"local.test"}, []int64{i})
	}
	posts := []struct{ group, subject, body string }{
		{"comp.lang.go", "Reading RFC 1738 URLs in Go", "Package uri parses them, scheme by scheme.\n"},
		{"comp.lang.go", "Re: Reading RFC 1738 URLs in Go", "And package fetch gets them.\n"},
		{"comp.lang.c", "Parsing FTP LIST output", "Every system has its own format.\n"},
		{"comp.lang.c", "Re: Parsing FTP LIST output", "MLSD (RFC 3659) is the cure where it is offered.\n"},
	}
	for i, p := range posts {
		n := int64(i%2 + 1)
		s.Post(article(p.group, n, p.subject, p.body), []string{p.group}, []int64{n})
	}
	return s
}

// article is a news article (RFC 5536) with LF line ends.
func article(group string, n int64, subject, body string) string {
	date := modTime.Add(time.Duration(n) * time.Hour).Format(time.RFC1123Z)
	return fmt.Sprintf("From: demo@example.org\nNewsgroups: %s\nSubject: %s\nDate: %s\nMessage-ID: <%d.%s@demo.invalid>\n\n%s",
		group, subject, date, n, group, body)
}

// httpHandler serves the archive as index pages under /pub/ and answers
// the WAIS gateway at /wais.
func httpHandler() http.Handler {
	mux := http.NewServeMux()
	var pub fs.FS = mapFS(pubFiles(), "pub")
	mux.Handle("/", http.FileServerFS(pub))
	mux.HandleFunc("/wais", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "WAIS gateway of the demo: database %q, query %q.\n", r.FormValue("db"), r.FormValue("q"))
		fmt.Fprintln(w, "A real gateway would search the WAIS database and list the documents it found.")
	})
	return mux
}
