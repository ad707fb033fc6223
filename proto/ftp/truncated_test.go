package ftp

import (
	"testing"
)

// A listing whose completion reply says the server cut it short (RFC 959
// section 4.2 leaves the text of a 226 to the server; Pure-FTPd's
// "Output truncated to N matches", its last line after "226-Options: -l"
// for LIST) is returned with its entries and Info["ftp_truncated"] set to
// that reply; any other 226 leaves the key out. For LIST and MLSD, with
// and without pipelining.
func TestListingTruncated(t *testing.T) {
	const (
		list = "-rw-r--r-- 1 0 0 10 Feb 03  2001 f1.txt\r\n-rw-r--r-- 1 0 0 10 Feb 03  2001 f2.txt\r\n"
		mlsd = "type=file;size=10;modify=20010203040506; f1.txt\r\ntype=file;size=10;modify=20010203040506; f2.txt\r\n"
	)
	for _, tc := range []struct {
		name, done, want string
	}{
		{"pure-ftpd LIST", "226-Options: -a -l \r\n226 Output truncated to 2 matches", "226 Output truncated to 2 matches"},
		{"pure-ftpd MLSD", "226 Output truncated to 2 matches", "226 Output truncated to 2 matches"},
		{"other wording", "226 Directory listing TRUNCATED at 2 entries", "226 Directory listing TRUNCATED at 2 entries"},
		{"whole", "226-Options: -a -l \r\n226 2 matches total", ""},
		{"plain", "", ""},
	} {
		for _, mode := range []struct {
			name string
			mlsd bool
			pipe bool
		}{{"LIST", false, false}, {"LIST pipelined", false, true}, {"MLSD", true, false}, {"MLSD pipelined", true, true}} {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				f := newFake(t)
				f.lists["LIST"] = []byte(list)
				if mode.mlsd {
					f.feat = append(f.feat, "MLST type*;size*;modify*;")
					f.lists["MLSD"] = []byte(mlsd)
				}
				f.listDone = tc.done
				f.start()
				d := &Driver{PipelinePassive: mode.pipe}
				defer d.CloseIdleConnections()
				resp, _, err := get(t, d, f.url("/"), quickReq())
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Entries) != 2 {
					t.Errorf("%d entries, want 2", len(resp.Entries))
				}
				if got, _ := resp.Info["ftp_truncated"].(string); got != tc.want {
					t.Errorf("ftp_truncated = %q, want %q", got, tc.want)
				}
				if got := resp.Info["ftp_listing"]; (got == formatMLSD) != mode.mlsd {
					t.Errorf("listed with %v", got)
				}
			})
		}
	}
}
