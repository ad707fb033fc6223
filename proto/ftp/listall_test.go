package ftp

import (
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// LIST -a (listall.go). RFC 959 section 4.1.3 leaves the content of a
// LIST answer to the server; a Unix server leaves out the names that begin
// with a dot unless asked with "-a", and a server that does not know the
// option takes "-a" for a name. Each case lists "/" twice with one Driver:
// the first listing's commands, its entries and Listing.DotNames, then
// the second listing's commands (what the Driver remembered).
func TestListAll(t *testing.T) {
	const (
		dots   = "drwxr-xr-x   3 0 0 4096 Feb 03  2001 .\r\ndrwxr-xr-x   4 0 0 4096 Feb 03  2001 ..\r\n"
		dotMsg = "-rw-r--r--   1 0 0   11 Feb 03  2001 .message\r\n"
		file   = "-rw-r--r--   1 0 0   10 Feb 03  2001 f.txt\r\n"
	)
	unix := "215 UNIX Type: L8"
	for _, tt := range []listAllCase{
		{name: "honoured", syst: unix,
			lists: map[string]string{"LIST -a": dots + dotMsg + file, "LIST": file},
			want:  ".message f.txt", cmds: "LIST -a", again: "LIST -a"},
		{name: "honoured, empty directory", syst: unix,
			lists: map[string]string{"LIST -a": dots, "LIST": ""},
			want:  "", cmds: "LIST -a", again: "LIST -a"},
		{name: "ignored", syst: unix,
			lists: map[string]string{"LIST -a": file, "LIST": file},
			want:  "f.txt", cmds: "LIST -a", again: "LIST -a"},
		{name: "refused 501", syst: unix,
			lists:   map[string]string{"LIST": file},
			replies: map[string]string{"LIST -a": "501 unknown option"},
			want:    "f.txt", cmds: "LIST -a|LIST", again: "LIST", dotInfo: true},
		{name: "taken for a name, 550", syst: unix,
			lists: map[string]string{"LIST": file},
			want:  "f.txt", cmds: "LIST -a|LIST", again: "LIST", dotInfo: true},
		{name: "taken for a name, nothing listed", syst: unix,
			lists: map[string]string{"LIST -a": "", "LIST": file},
			want:  "f.txt", cmds: "LIST -a|LIST", again: "LIST", dotInfo: true},
		{name: "empty both ways", syst: unix,
			lists: map[string]string{"LIST -a": "", "LIST": ""},
			want:  "", cmds: "LIST -a|LIST", again: "LIST -a|LIST"},
		{name: "emulated Unix", syst: "215 UNIX emulated by FileZilla",
			lists: map[string]string{"LIST -a": dots + dotMsg + file, "LIST": file},
			want:  ".message f.txt", cmds: "LIST -a", again: "LIST -a"},
		{name: "not Unix", syst: "215 Windows_NT",
			lists: map[string]string{"LIST -a": dots + dotMsg + file, "LIST": file},
			want:  "f.txt", cmds: "LIST", again: "LIST"},
		{name: "no SYST", syst: "",
			lists: map[string]string{"LIST -a": dots + dotMsg + file, "LIST": file},
			want:  "f.txt", cmds: "LIST", again: "LIST"},
		{name: "not asked", syst: unix, noAll: true,
			lists: map[string]string{"LIST -a": dots + dotMsg + file, "LIST": file},
			want:  "f.txt", cmds: "LIST", again: "LIST"},
	} {
		for _, pipe := range []bool{false, true} {
			name := tt.name
			if pipe {
				name += ", pipelined"
			}
			t.Run(name, func(t *testing.T) { testListAll(t, tt, pipe) })
		}
	}
}

// listAllCase is one row of TestListAll.
type listAllCase struct {
	name    string
	syst    string            // reply to SYST; "" means 502
	noAll   bool              // ListAll not set
	lists   map[string]string // the fake's answers ("LIST -a" missing: 550)
	replies map[string]string
	want    string // entry names
	cmds    string // the first listing's LIST commands
	again   string // the second listing's
	dotInfo bool   // Listing.DotNames is set (both listings)
}

func testListAll(t *testing.T, tt listAllCase, pipe bool) {
	f := newFake(t)
	for k, v := range tt.lists {
		f.lists[k] = []byte(v)
	}
	for k, v := range tt.replies {
		f.replies[k] = v
	}
	if tt.syst != "" {
		f.replies["SYST"] = tt.syst
	}
	f.start()
	d := New(Config{PipelinePassive: pipe})
	defer d.CloseIdleConnections()
	req := quickReq()
	req.Options.FTP.ListAll = !tt.noAll
	for i, want := range []string{tt.cmds, tt.again} {
		f.mu.Lock()
		f.wire.Reset()
		f.mu.Unlock()
		resp, _, err := get(t, d, f.url("/"), req)
		if err != nil {
			t.Fatalf("listing %d: %v", i+1, err)
		}
		if got := listCommands(f); got != want {
			t.Errorf("listing %d sent %q, want %q", i+1, got, want)
		}
		if i == 0 {
			var names []string
			for _, e := range resp.Entries {
				names = append(names, e.Name)
			}
			if got := strings.Join(names, " "); got != tt.want {
				t.Errorf("entries %q, want %q", got, tt.want)
			}
		}
		if s := resp.Listing.DotNames; (s != "") != tt.dotInfo {
			t.Errorf("listing %d: Listing.DotNames = %q, want set: %v", i+1, s, tt.dotInfo)
		}
	}
}

// With MethodNoCWD the path follows the option ("LIST -a a/b"), and a cut
// answer to LIST -a is asked for again as LIST -a (TestListingCutMidLine).
func TestListAllPath(t *testing.T) {
	const whole = "drwxr-xr-x 3 0 0 4096 Feb 03  2001 .\r\n-rw-r--r-- 1 0 0 11 Feb 03  2001 .message\r\n"
	f := newFake(t)
	f.replies["SYST"] = "215 UNIX Type: L8"
	f.listSeq = map[string][][]byte{"LIST -a a/b": {[]byte(whole[:len(whole)-5]), []byte(whole)}}
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	req := quickReq()
	req.Options = proto.Options{FTP: proto.FTPOptions{Method: proto.MethodNoCWD, ListAll: true}}
	resp, _, err := get(t, d, f.url("/a/b/"), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := listCommands(f), "LIST -a a/b|LIST -a a/b"; got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
	if len(resp.Entries) != 1 || resp.Entries[0].Name != ".message" {
		t.Errorf("entries %v, want .message", resp.Entries)
	}
}

// A 450 to LIST -a ("file unavailable") may be a name "-a" that matches
// no file, or a server busy for the moment: LIST is asked, and only when
// it answers is the server recorded as refusing the option. Another
// failure of the moment (425: no data connection) is the listing's
// error, and nothing is recorded.
func TestListAllTransient(t *testing.T) {
	const file = "-rw-r--r-- 1 0 0 10 Feb 03  2001 f.txt\r\n"
	for _, tc := range []struct {
		name     string
		replies  map[string]string
		code     int    // the listing's failure; 0 for none
		cmds     string // LIST commands sent
		recorded bool
	}{
		{"450, then LIST answers", map[string]string{"LIST -a": "450 -a: no such file"}, 0, "LIST -a|LIST", true},
		{"450 twice", map[string]string{"LIST -a": "450 busy, try later", "LIST": "450 busy, try later"}, 450, "LIST -a|LIST", false},
		{"425", map[string]string{"LIST -a": "425 cannot open data connection"}, 425, "LIST -a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.replies["SYST"] = "215 UNIX Type: L8"
			f.lists["LIST"] = []byte(file)
			for k, v := range tc.replies {
				f.replies[k] = v
			}
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			req := quickReq()
			req.Options.FTP.ListAll = true
			_, _, err := get(t, d, f.url("/"), req)
			if replyCode(err) != tc.code || tc.code == 0 && err != nil {
				t.Fatalf("Fetch = %v, want code %d", err, tc.code)
			}
			if got := listCommands(f); got != tc.cmds {
				t.Errorf("sent %q, want %q", got, tc.cmds)
			}
			if d.pool().refuses(f.addr(), "LIST -a") != tc.recorded {
				t.Errorf("recorded as refusing LIST -a: %v, want %v", !tc.recorded, tc.recorded)
			}
		})
	}
}

// listCommands is the LIST commands f received, joined by "|".
func listCommands(f *fakeFTP) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var cmds []string
	for _, l := range strings.Split(f.wire.String(), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.HasPrefix(l, "LIST") {
			cmds = append(cmds, l)
		}
	}
	return strings.Join(cmds, "|")
}
