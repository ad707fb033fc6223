package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// Issue 2 acceptance and DESIGN.md's parse --json keys.
func TestParseJSON(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want string
	}{
		// Issue 2 acceptance.
		{"gopher://h/0a%09b%09+",
			`{"scheme":"gopher","user":null,"password":null,"host":"h","port":null,"default_port":70,"gopher":{"type":"0","selector":"a","search":"b","plus":"+"}}`},
		// RFC 1738 section 3.2.2: %2F inside a segment.
		{"ftp://myname@host.dom/%2Fetc/motd",
			`{"scheme":"ftp","user":"myname","password":null,"host":"host.dom","port":null,"default_port":21,"ftp":{"cwd":["/etc"],"name":"motd","type":null}}`},
		// An empty password is present; a non-empty one is never printed.
		{"ftp://foo:@host:2121/d/;type=d",
			`{"scheme":"ftp","user":"foo","password":"","host":"host","port":2121,"default_port":21,"ftp":{"cwd":["d"],"name":"","type":"d"}}`},
		{"ftp://foo:hunter2@host/",
			`{"scheme":"ftp","user":"foo","password":"xxxxx","host":"host","port":null,"default_port":21,"ftp":{"cwd":[],"name":"","type":null}}`},
		// RFC 1738 section 3.3.
		{"http://h:8080/a%20b?x=1",
			`{"scheme":"http","user":null,"password":null,"host":"h","port":8080,"default_port":80,"http":{"path":"/a%20b","search":"x=1"}}`},
		// RFC 1738 section 3.6.
		{"news:*",
			`{"scheme":"news","user":null,"password":null,"host":"","port":null,"default_port":null,"news":{"group":"","article":null,"all":true}}`},
		{"news:<abc@h>",
			`{"scheme":"news","user":null,"password":null,"host":"","port":null,"default_port":null,"news":{"group":"","article":"abc@h","all":false}}`},
		// RFC 1738 section 3.7.
		{"nntp://h/comp.lang/42",
			`{"scheme":"nntp","user":null,"password":null,"host":"h","port":null,"default_port":119,"nntp":{"group":"comp.lang","article":42}}`},
		// RFC 1738 section 3.8.
		{"telnet://u:p@h:23/",
			`{"scheme":"telnet","user":"u","password":"xxxxx","host":"h","port":23,"default_port":23,"telnet":{}}`},
		// RFC 1738 section 3.9.
		{"wais://h/db?q",
			`{"scheme":"wais","user":null,"password":null,"host":"h","port":null,"default_port":210,"wais":{"database":"db","search":"q","wtype":null,"wpath":null}}`},
		// RFC 1738 section 3.10.
		{"file://localhost/etc/a%20b",
			`{"scheme":"file","user":null,"password":null,"host":"localhost","port":null,"default_port":null,"file":{"host":"localhost","path":"/etc/a b"}}`},
		// RFC 1738 section 3.11.
		{"prospero://host.dom//pros/name;a=1;b=2",
			`{"scheme":"prospero","user":null,"password":null,"host":"host.dom","port":null,"default_port":1525,"prospero":{"hsoname":"/pros/name","fields":{"a":"1","b":"2"}}}`},
		// RFC 1738 section 3.5.
		{"mailto:a%40b@c",
			`{"scheme":"mailto","user":null,"password":null,"host":"","port":null,"default_port":null,"mailto":{"address":"a@b@c"}}`},
	} {
		r := runArgs(t, nil, "", "parse", "--json", tt.url)
		if r.code != 0 || strings.TrimSpace(r.out) != tt.want {
			t.Errorf("parse --json %q = %d\n%s\nwant\n%s\nstderr: %s", tt.url, r.code, r.out, tt.want, r.err)
		}
		if strings.Contains(r.out, "hunter2") {
			t.Errorf("parse %q printed the password", tt.url)
		}
	}
}

// Issue 2 acceptance: a malformed URL exits 3 naming the offset.
func TestParseMalformed(t *testing.T) {
	r := runArgs(t, nil, "", "parse", "http://a b/")
	if r.code != fetch.ExitMalformed || !strings.Contains(r.err, "offset 8") {
		t.Errorf("parse 'http://a b/' = %d, stderr %q; want 3 naming offset 8", r.code, r.err)
	}
	r = runArgs(t, nil, "", "parse", "ftp://u:hunter2@h/x;type=q")
	if r.code != fetch.ExitMalformed || strings.Contains(r.err, "hunter2") {
		t.Errorf("parse with a bad typecode = %d, stderr %q", r.code, r.err)
	}
	// One good and one bad URL: partial.
	r = runArgs(t, nil, "", "parse", "--json", "http://h/", "http://a b/")
	if r.code != fetch.ExitPartial || strings.Count(r.out, "\n") != 1 {
		t.Errorf("parse good+bad = %d, out %q", r.code, r.out)
	}
}

func TestParseText(t *testing.T) {
	r := runArgs(t, nil, "", "parse", "ftp://u:pw@h//etc/motd;type=a")
	want := `scheme: "ftp"
user: "u"
password: "xxxxx"
host: "h"
port: null
default_port: 21
ftp.cwd: ["","etc"]
ftp.name: "motd"
ftp.type: "a"
`
	if r.code != 0 || r.out != want {
		t.Errorf("parse = %d\n%s\nwant\n%s", r.code, r.out, want)
	}
	r = runArgs(t, nil, "", "parse", "x-unknown:opaque")
	var m map[string]any
	r2 := runArgs(t, nil, "", "parse", "--json", "x-unknown:opaque")
	if r.code != 0 || json.Unmarshal([]byte(r2.out), &m) != nil || len(m) != 6 {
		t.Errorf("parse of an unknown scheme = %d %q / %q", r.code, r.out, r2.out)
	}
}

// Issue 2 acceptance; RFC 2396 Appendix C.
func TestResolve(t *testing.T) {
	r := runArgs(t, nil, "", "resolve", "--rfc", "2396", "http://a/b/c/d;p?q", "?y", "g;x", "../../../g")
	if want := "http://a/b/c/?y\nhttp://a/b/c/g;x\nhttp://a/../g\n"; r.code != 0 || r.out != want {
		t.Errorf("resolve --rfc 2396 = %d %q, want %q (stderr %q)", r.code, r.out, want, r.err)
	}
	r = runArgs(t, nil, "", "resolve", "http://a/b/c/d;p?q", "?y")
	if r.code != 0 || r.out != "http://a/b/c/d;p?y\n" {
		t.Errorf("resolve (RFC 3986) = %d %q", r.code, r.out)
	}
	if r := runArgs(t, nil, "", "resolve", "--rfc", "822", "http://a/", "b"); r.code != fetch.ExitUsage {
		t.Errorf("resolve --rfc 822 = %d, want 2", r.code)
	}
	if r := runArgs(t, nil, "", "resolve", "http://a/"); r.code != fetch.ExitUsage {
		t.Errorf("resolve with no reference = %d, want 2", r.code)
	}
	r = runArgs(t, nil, "", "resolve", "ftp://u:hunter2@a/b/", "c")
	if r.code != 0 || r.out != "ftp://u:xxxxx@a/b/c\n" {
		t.Errorf("resolve with a password = %d %q", r.code, r.out)
	}
}

// Issue 2 acceptance; seed 001 Appendix B.
func TestExtract(t *testing.T) {
	r := runArgs(t, nil, "see <URL:ftp://ds.in\n ternic.net/rfc>.", "extract")
	if r.code != 0 || r.out != "ftp://ds.internic.net/rfc\n" {
		t.Errorf("extract = %d %q", r.code, r.out)
	}
	if r := runArgs(t, nil, "", "extract", "/nonexistent/file"); r.code != fetch.ExitError {
		t.Errorf("extract of a missing file = %d, want 1", r.code)
	}
}
