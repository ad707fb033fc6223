package ftp

import (
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// TestStatTime: with FTPOptions.Stat StatTime the driver sends MDTM and
// not SIZE (the caller knows the size), and gives MDTM's time (RFC 3659
// section 3) as the response's; with Options.IfModifiedSince that time
// or a later one, the file is not retrieved: NotModified, no RETR sent.
// A file changed after it is retrieved. A server without MDTM in FEAT
// gets no MDTM, and the file is retrieved. A refused MDTM leaves the
// time unknown.
func TestStatTime(t *testing.T) {
	mdtm := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) // the fake's MDTM answer
	for _, c := range []struct {
		name    string
		feat    bool
		ims     time.Time
		notMod  bool
		retr    bool
		wantMod time.Time
		order   string // the client's commands, in this order and in a row
		refuse  bool   // MDTM answers 550
	}{
		{"unchanged", true, mdtm, true, false, mdtm, "MDTM a.bin\r\n", false},
		{"later", true, mdtm.Add(-time.Second), false, true, mdtm, "MDTM a.bin\r\nEPSV\r\nRETR a.bin\r\n", false},
		{"since a later time", true, mdtm.Add(time.Second), true, false, mdtm, "MDTM a.bin\r\n", false},
		{"no condition", true, time.Time{}, false, true, mdtm, "MDTM a.bin\r\nEPSV\r\nRETR a.bin\r\n", false},
		{"no condition, refused", true, time.Time{}, false, true, time.Time{}, "MDTM a.bin\r\nEPSV\r\nRETR a.bin\r\n", true},
		{"no MDTM in FEAT", false, mdtm, false, true, time.Time{}, "EPSV\r\nRETR a.bin\r\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			if !c.feat {
				f.feat = []string{"SIZE", "EPSV", "PASV"}
			}
			f.files["a.bin"] = []byte("0123456789")
			if c.refuse {
				f.replies["MDTM a.bin"] = "550 not now"
			}
			f.start()
			d := New(Config{PipelinePassive: true})
			defer d.CloseIdleConnections()
			req := quickReq()
			req.Options.IfModifiedSince = c.ims
			req.Options.FTP = proto.FTPOptions{Stat: proto.StatTime, Size: 10}
			resp, body, err := get(t, d, f.url("/a.bin"), req)
			if err != nil {
				t.Fatal(err)
			}
			sent := f.sent()
			if resp.NotModified != c.notMod || strings.Contains(sent, "RETR") != c.retr || !resp.ModTime.Equal(c.wantMod) {
				t.Errorf("NotModified %v, time %v, sent RETR %v; want %v, %v, %v\n%s", resp.NotModified, resp.ModTime, strings.Contains(sent, "RETR"), c.notMod, c.wantMod, c.retr, sent)
			}
			if c.retr && string(body) != "0123456789" || !c.retr && len(body) != 0 {
				t.Errorf("body %q", body)
			}
			if !strings.Contains(sent, c.order) {
				t.Errorf("sent no %q:\n%s", c.order, sent)
			}
			if strings.Contains(sent, "SIZE") || strings.Contains(sent, "MDTM") != c.feat {
				t.Errorf("sent SIZE, or MDTM where FEAT has it not (or not where it has):\n%s", sent)
			}
		})
	}
}
