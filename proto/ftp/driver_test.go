package ftp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// quickReq is a Request with short timeouts for fakes on loopback.
func quickReq() *proto.Request {
	return &proto.Request{ConnectTimeout: 2 * time.Second, IdleTimeout: 2 * time.Second}
}

// get fetches raw with d and reads the whole body.
func get(t *testing.T, d *Driver, raw string, req *proto.Request) (*proto.Response, []byte, error) {
	t.Helper()
	u, err := uri.Parse(raw)
	if err != nil {
		t.Fatalf("uri.Parse(%q) = %v", raw, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resp, err := d.Fetch(ctx, u, req)
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	return resp, b, err
}

// commands turns "A|B|C" into "A\r\nB\r\nC\r\n".
func commands(s string) string {
	if s == "" {
		return ""
	}
	return strings.ReplaceAll(s, "|", "\r\n") + "\r\n"
}

const anonLogin = "USER anonymous|PASS anonymous@|FEAT|TYPE I|PWD|"

// transcriptTests give, for each form of ftp URL, the exact commands the
// client must send after the login (RFC 1738 section 3.2.2 unless noted).
var transcriptTests = []struct {
	name string
	path string
	opts proto.Options
	mlst bool
	want string
}{
	// 3.2.2: "%2F" decodes to "/" inside its segment: one CWD /etc.
	{"encoded slash", "/%2Fetc/motd", proto.Options{}, false, "CWD /etc|TYPE I|SIZE motd|MDTM motd|EPSV|RETR motd"},
	// 3.2.2: each segment one CWD, relative to the login directory.
	{"relative", "/etc/motd", proto.Options{}, false, "CWD etc|TYPE I|SIZE motd|MDTM motd|EPSV|RETR motd"},
	// 3.2.2: an empty segment is a CWD with a null argument.
	{"null cwd", "//etc/motd", proto.Options{}, false, "CWD |CWD etc|TYPE I|SIZE motd|MDTM motd|EPSV|RETR motd"},
	// 3.2.2: several segments, several CWDs, in order.
	{"deep", "/a/b/c/f.bin", proto.Options{}, false, "CWD a|CWD b|CWD c|TYPE I|SIZE f.bin|MDTM f.bin|EPSV|RETR f.bin"},
	// 3.2.2: no cwd segments, no CWD.
	{"root file", "/f.bin", proto.Options{}, false, "TYPE I|SIZE f.bin|MDTM f.bin|EPSV|RETR f.bin"},
	// 3.2.4: ;type=a is TYPE A; SIZE is not asked (it counts stored bytes).
	{"type a", "/pub/notes;type=a", proto.Options{}, false, "CWD pub|TYPE A|MDTM notes|EPSV|RETR notes"},
	// 3.2.4: ;type=i is TYPE I, even for a name the guess would call text.
	{"type i", "/pub/README;type=i", proto.Options{}, false, "CWD pub|TYPE I|SIZE README|MDTM README|EPSV|RETR README"},
	// 3.2.4: no typecode, a name in the text table: TYPE A (guess.go).
	{"guess text", "/pub/README", proto.Options{}, false, "CWD pub|TYPE A|MDTM README|EPSV|RETR README"},
	// Options.FTP.Binary: no guess.
	{"no guess", "/pub/README", proto.Options{FTP: proto.FTPOptions{Binary: true}}, false, "CWD pub|TYPE I|SIZE README|MDTM README|EPSV|RETR README"},
	// 3.2.4: ;type=d is NLST of the name.
	{"type d", "/pub/sub;type=d", proto.Options{}, false, "CWD pub|EPSV|NLST sub"},
	// 3.2.4: ;type=d with an empty name is NLST without an argument.
	{"type d dir", "/pub/;type=d", proto.Options{}, false, "CWD pub|EPSV|NLST"},
	// 3.2.2: a path ending in "/" lists the directory: LIST without MLST.
	{"list", "/pub/", proto.Options{}, false, "CWD pub|SYST|EPSV|LIST"},
	// RFC 3659 section 7: MLSD when FEAT offers MLST.
	{"mlsd", "/pub/", proto.Options{}, true, "CWD pub|EPSV|MLSD"},
	// curl's singlecwd: one CWD with the joined directory.
	{"singlecwd", "/a/b/c/f.bin", proto.Options{FTP: proto.FTPOptions{Method: proto.MethodSingleCWD}}, false, "CWD a/b/c|TYPE I|SIZE f.bin|MDTM f.bin|EPSV|RETR f.bin"},
	// singlecwd: leading empty segments keep the path absolute.
	{"singlecwd abs", "//etc/motd", proto.Options{FTP: proto.FTPOptions{Method: proto.MethodSingleCWD}}, false, "CWD /etc|TYPE I|SIZE motd|MDTM motd|EPSV|RETR motd"},
	// curl's nocwd: the whole path as the argument.
	{"nocwd", "/a/b/c/f.bin", proto.Options{FTP: proto.FTPOptions{Method: proto.MethodNoCWD}}, false, "TYPE I|SIZE a/b/c/f.bin|MDTM a/b/c/f.bin|EPSV|RETR a/b/c/f.bin"},
	{"nocwd list", "/a/b/", proto.Options{FTP: proto.FTPOptions{Method: proto.MethodNoCWD}}, false, "SYST|EPSV|LIST a/b"},
	// Options.FTP.Stat: StatNone (the mirror knows sizes from the listing).
	{"no stat", "/f.bin", proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone}}, false, "TYPE I|EPSV|RETR f.bin"},
	{"size only", "/f.bin", proto.Options{FTP: proto.FTPOptions{Stat: proto.StatSize}}, false, "TYPE I|SIZE f.bin|EPSV|RETR f.bin"},
}

// A value of proto.FTPOptions that no constant or flag gives (a library
// caller's mistake) is an error before anything is dialled, for Fetch and
// List alike.
func TestBadOptions(t *testing.T) {
	for _, o := range []proto.FTPOptions{
		{Method: "cwd"},
		{Stat: "0"},
		{TLS: "yes"},
		{Port: "eth0"},
	} {
		req := quickReq()
		req.Options.FTP = o
		req.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			t.Errorf("%+v: dialled %s", o, addr)
			return nil, errors.New("no dial in this test")
		}
		d := &Driver{}
		if _, _, err := get(t, d, "ftp://127.0.0.1/a", req); err == nil {
			t.Errorf("Fetch with %+v = nil error", o)
		}
		if _, _, err := proto.ListAll(t.Context(), d, uri.MustParse("ftp://127.0.0.1/"), req); err == nil {
			t.Errorf("List with %+v = nil error", o)
		}
	}
}

func TestTranscript(t *testing.T) {
	for _, tt := range transcriptTests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			for _, name := range []string{"motd", "f.bin", "notes", "README", "a/b/c/f.bin"} {
				f.files[name] = []byte("data\r\n")
			}
			for _, k := range []string{"NLST sub", "NLST", "MLSD"} {
				f.lists[k] = []byte("x\r\n")
			}
			for _, k := range []string{"LIST", "LIST a/b"} {
				f.lists[k] = []byte("-rw-r--r-- 1 u g 4 Jan 01 2020 x\r\n")
			}
			if tt.mlst {
				f.feat = append(f.feat, "MLST type*;size*;modify*;")
			}
			f.start()
			req := quickReq()
			req.Options = tt.opts
			d := &Driver{}
			defer d.CloseIdleConnections()
			if _, _, err := get(t, d, f.url(tt.path), req); err != nil {
				t.Fatalf("Fetch(%q) = %v", tt.path, err)
			}
			want := commands(anonLogin + tt.want)
			if got := f.sent(); got != want {
				t.Errorf("Fetch(%q) sent\n%q\nwant\n%q", tt.path, got, want)
			}
		})
	}
}

func TestTypeAConversion(t *testing.T) {
	f := newFake(t)
	f.files["notes"] = []byte("one\r\ntwo\r\nbare\rcr\r\n\r\n")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, b, err := get(t, d, f.url("/notes;type=a"), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	// RFC 959 3.1.1.1: NVT-ASCII lines end in CRLF; locally, LF.
	if want := "one\ntwo\nbare\rcr\n\n"; string(b) != want {
		t.Errorf("body = %q, want %q", b, want)
	}
	if resp.Size != -1 {
		t.Errorf("Size = %d, want -1 for TYPE A", resp.Size)
	}
}

func TestCRLFReaderSplits(t *testing.T) {
	in := "a\r\nb\r\r\nc\r"
	for _, chunk := range []int{1, 2, 3, 7} {
		r := newCRLFReader(&chunkReader{s: in, n: chunk})
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if want := "a\nb\r\nc\r"; string(got) != want {
			t.Errorf("chunks of %d: got %q, want %q", chunk, got, want)
		}
	}
}

type chunkReader struct {
	s string
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := copy(p, c.s[:min(c.n, len(c.s))])
	c.s = c.s[n:]
	return n, nil
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		replies map[string]string
		kind    error
		code    int
		cmd     string
	}{
		// RFC 959 4.2: 550 file unavailable (not found).
		{"retr 550", "/missing.bin", nil, proto.ErrNotFound, 550, "RETR missing.bin"},
		{"cwd 550", "/nodir/f.bin", map[string]string{"CWD nodir": "550 No such directory"}, proto.ErrNotFound, 550, "CWD nodir"},
		// 550 whose text speaks of permission is a refusal.
		{"retr 550 perm", "/secret.bin", map[string]string{"RETR secret.bin": "550 Permission denied"}, proto.ErrPermission, 550, "RETR secret.bin"},
		// RFC 959 4.2: 553 file name not allowed.
		{"retr 553", "/bad.bin", map[string]string{"RETR bad.bin": "553 File name not allowed"}, proto.ErrPermission, 553, "RETR bad.bin"},
		// RFC 959 4.2: 530 not logged in.
		{"pass 530", "/f.bin", map[string]string{"PASS anonymous@": "530 Login incorrect"}, proto.ErrLogin, 530, "PASS ****"},
		// A server that refuses the user name outright.
		{"user 530", "/f.bin", map[string]string{"USER anonymous": "530 This server does not allow anonymous"}, proto.ErrLogin, 530, "USER anonymous"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.files["f.bin"] = []byte("x")
			for k, v := range tt.replies {
				f.replies[k] = v
			}
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			_, _, err := get(t, d, f.url(tt.path), quickReq())
			if !errors.Is(err, tt.kind) {
				t.Fatalf("Fetch(%q) = %v, want an error wrapping %v", tt.path, err, tt.kind)
			}
			var te *textproto.Error
			if !errors.As(err, &te) || te.Code != tt.code {
				t.Errorf("Fetch(%q) = %v, want a *textproto.Error with code %d", tt.path, err, tt.code)
			}
			var ce *CommandError
			if !errors.As(err, &ce) || ce.Cmd != tt.cmd {
				t.Errorf("Fetch(%q) = %v, want a *CommandError for %q", tt.path, err, tt.cmd)
			}
		})
	}
}

// A refused null CWD does not end the retrieval; it is reported as a
// warning in Info and the transcript, and the error's command is named.
func TestNullCWDRefused(t *testing.T) {
	f := newFake(t)
	f.files["motd"] = []byte("hello\n")
	f.replies["CWD "] = "550 Failed to change directory."
	f.start()
	var trace bytes.Buffer
	req := quickReq()
	req.Trace = &trace
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, b, err := get(t, d, f.url("//etc/motd"), req)
	if err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	if string(b) != "hello\n" {
		t.Errorf("body = %q", b)
	}
	w, _ := resp.Info["warnings"].([]string)
	if len(w) != 1 || !strings.Contains(w[0], "CWD (null argument) refused: 550") {
		t.Errorf("Info[warnings] = %q, want the null CWD refusal", w)
	}
	if !strings.Contains(trace.String(), "* CWD (null argument) refused (550 Failed to change directory.): staying in the current directory\n") {
		t.Errorf("trace does not report the refusal:\n%s", trace.String())
	}
	if !strings.Contains(f.sent(), "CWD \r\nCWD etc\r\n") {
		t.Errorf("sent %q, want a null CWD then CWD etc", f.sent())
	}
}

// A refused CWD with an argument is an error naming the command.
func TestCWDErrorNamesCommand(t *testing.T) {
	f := newFake(t)
	f.replies["CWD etc"] = "550 Failed to change directory."
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	_, _, err := get(t, d, f.url("/etc/motd"), quickReq())
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Cmd != "CWD etc" {
		t.Fatalf("Fetch = %v, want a CommandError for CWD etc", err)
	}
}

// A CWD answered with another 2xx than 250 ("200 directory changed",
// as some servers say) succeeds, one CWD at a time as with all of them
// at once (cwdAtOnce), as curl takes any 2xx.
func TestCWDAnswered200(t *testing.T) {
	f := newFake(t)
	f.files["motd"] = []byte("hello\n")
	f.replies["CWD etc"] = "200 directory changed to /etc"
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	if _, b, err := get(t, d, f.url("/etc/motd"), quickReq()); err != nil || string(b) != "hello\n" {
		t.Fatalf("Fetch = %q, %v", b, err)
	}
}

func TestEntryURL(t *testing.T) {
	tests := []struct {
		base string
		e    proto.Entry
		want string
	}{
		// The password never goes into an entry's URL; the user stays.
		{"ftp://u:secret@h:2121/a/b/", proto.Entry{Name: "f.txt", Type: proto.EntryFile}, "ftp://u@h:2121/a/b/f.txt"},
		// A directory URL without the final "/", and a typecode, are handled.
		{"ftp://h/a/b;type=d", proto.Entry{Name: "sub", Type: proto.EntryDir}, "ftp://h/a/b/sub/"},
		// Names are escaped into one segment (RFC 1738 3.2.2: "/" and ";"
		// are reserved in a segment).
		{"ftp://h/", proto.Entry{Name: "a/b;c d%", Type: proto.EntryFile}, "ftp://h/a%2Fb%3Bc%20d%25"},
		{"ftp://h", proto.Entry{Name: "x", Type: proto.EntryLink}, "ftp://h/x"},
	}
	for _, tt := range tests {
		u := uri.MustParse(tt.base)
		if got := entryURL(entryBase(u), tt.e); got != tt.want {
			t.Errorf("entryURL(%q, %q) = %q, want %q", tt.base, tt.e.Name, got, tt.want)
		}
		// The URL names the entry: its FTP view ends in the entry's name.
		v, err := uri.MustParse(tt.want).FTP()
		if err != nil {
			t.Fatal(err)
		}
		last := v.Name
		if tt.e.Type == proto.EntryDir {
			last = v.CWD[len(v.CWD)-1]
		}
		if last != tt.e.Name {
			t.Errorf("%q names %q, want %q", tt.want, last, tt.e.Name)
		}
	}
}

// TYPE A sent, but the 150 says the data comes in binary mode (vsftpd's
// default, without ascii_download_enable): the bytes are the stored ones
// and nothing is converted, whether the type came from ;type=a or from
// the guess; Info["ftp_type"] says "I". A server that says ASCII mode
// gets its CRLFs converted.
func TestTypeAServerSendsBinary(t *testing.T) {
	stored := []byte("one\r\ntwo\r\nbare\rcr\r\n")
	tests := []struct {
		name, path, opening, want, typ string
	}{
		{"guess, binary 150", "/pub/notes.txt", "Opening BINARY mode data connection for notes.txt (19 bytes).", string(stored), "I"},
		{";type=a, binary 150", "/pub/notes.txt;type=a", "Opening BINARY mode data connection for notes.txt (19 bytes).", string(stored), "I"},
		{"guess, ascii 150", "/pub/notes.txt", "Opening ASCII mode data connection for notes.txt (19 bytes).", "one\ntwo\nbare\rcr\n", "A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.files["notes.txt"] = stored
			f.opening = tt.opening
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			resp, b, err := get(t, d, f.url(tt.path), quickReq())
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("body = %q, want %q", b, tt.want)
			}
			if got := resp.Info["ftp_type"]; got != tt.typ {
				t.Errorf(`Info["ftp_type"] = %v, want %q`, got, tt.typ)
			}
			if !strings.Contains(f.sent(), "TYPE A\r\n") {
				t.Errorf("TYPE A not sent:\n%s", f.sent())
			}
		})
	}
}
