package ftp

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// TestParseFEAT reads the text of 211 replies to FEAT as net/textproto
// gives it: RFC 2389 section 3.2 (a feature per line, after one space;
// the first and last lines are not features), names in either case (RFC
// 959 section 5.3 reads commands so).
func TestParseFEAT(t *testing.T) {
	for _, tt := range []struct {
		name string
		msg  string
		want features
	}{
		{"RFC 2389 example", "Extensions supported:\n MLST size*;create;modify*;perm;media-type\n SIZE\n COMPRESSION\n MDTM\nEND",
			features{"MLST": "size*;create;modify*;perm;media-type", "SIZE": "", "COMPRESSION": "", "MDTM": ""}},
		{"vsftpd", "Features:\n EPRT\n EPSV\n MDTM\n PASV\n REST STREAM\n SIZE\n TVFS\nEnd",
			features{"EPRT": "", "EPSV": "", "MDTM": "", "PASV": "", "REST": "STREAM", "SIZE": "", "TVFS": ""}},
		{"lower case names", "Features:\n mdtm\n Mlst type*;\nEnd", features{"MDTM": "", "MLST": "type*;"}},
		{"more than one space", "Features:\n   SIZE  \n LANG EN*;FR\nEnd", features{"SIZE": "", "LANG": "EN*;FR"}},
		// A line that does not start with a space is not a feature:
		// the first and last, and "211-" lines inside the reply, whose
		// code net/textproto takes off.
		{"code lines inside", "Features:\nMDTM\n SIZE\nEnd", features{"SIZE": ""}},
		{"no features", "No features\nEnd", features{}},
		{"one line", "no features", features{}},
		{"blank feature line", "Features:\n \n SIZE\nEnd", features{"SIZE": ""}},
		{"CR left on a line", "Features:\n MDTM\r\nEnd", features{"MDTM": ""}},
		{"empty", "", features{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseFEAT(tt.msg); !maps.Equal(got, tt.want) {
				t.Errorf("parseFEAT(%q) = %v, want %v", tt.msg, got, tt.want)
			}
		})
	}
}

func FuzzParseFEAT(f *testing.F) {
	for _, s := range []string{"Features:\n MDTM\n REST STREAM\nEnd", "\n \n", " a b c", "x\n\tSIZE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := parseFEAT(msg)
		for name, params := range got {
			if name == "" || name != strings.ToUpper(name) || strings.ContainsAny(name, " \n") {
				t.Errorf("parseFEAT(%q): feature name %q", msg, name)
			}
			if strings.Contains(params, "\n") {
				t.Errorf("parseFEAT(%q): parameters %q of %q hold a line end", msg, params, name)
			}
			if !strings.Contains(strings.ToUpper(msg), name) {
				t.Errorf("parseFEAT(%q): %q is not in the reply", msg, name)
			}
		}
	})
}

// TestParsePASV reads the address of 227 replies (RFC 959 section 4.1.2,
// "227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)"; RFC 1123 section
// 4.1.2.6: the text around the six numbers varies, parentheses included,
// and the client scans for them).
func TestParsePASV(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want string // "" for an error
	}{
		{"Entering Passive Mode (127,0,0,1,4,1)", "127.0.0.1:1025"},
		{"Entering Passive Mode (192,168,1,2,255,255).", "192.168.1.2:65535"},
		{"Entering Passive Mode 10,1,2,3,0,21", "10.1.2.3:21"}, // no parentheses (RFC 1123)
		{"=127,0,0,1,200,10", "127.0.0.1:51210"},               // "=" before them
		{"Entering Passive Mode (h1,h2,h3,h4,p1,p2) 127,0,0,1,0,80", "127.0.0.1:80"},
		{"Entering Passive Mode (1234,0,0,1,0,1,1)", "0.0.1.0:257"}, // the first run of six numbers up to 255
		{"Entering Passive Mode (256,0,0,1,4,1)", ""},
		{"Entering Passive Mode (127,0,0,1,4,256)", ""},
		{"Entering Passive Mode (127,0,0,1,4)", ""},
		{"Entering Passive Mode (127,0,0,1,0,0)", ""}, // port 0
		{"Entering Passive Mode (127, 0, 0, 1, 4, 1)", ""},
		{"Entering Passive Mode (127,0,0,1,4,-1)", ""},
		{"Entering Passive Mode (0127,0,0,1,4,1)", ""},                      // four digits
		{"Entering Passive Mode (127,000,00,01,004,001)", "127.0.0.1:1025"}, // leading zeros
		{"Entering Passive Mode", ""},
		{"", ""},
	} {
		addr, err := parsePASV(tt.msg)
		if tt.want == "" {
			var pe *proto.ProtocolError
			if !errors.As(err, &pe) {
				t.Errorf("parsePASV(%q) = %v, %v; want a *proto.ProtocolError", tt.msg, addr.String(), err)
			}
			continue
		}
		if err != nil || addr.String() != tt.want {
			t.Errorf("parsePASV(%q) = %v, %v; want %s", tt.msg, addr.String(), err, tt.want)
		}
	}
}

func FuzzParsePASV(f *testing.F) {
	for _, s := range []string{"Entering Passive Mode (127,0,0,1,4,1)", "1,2,3,4,5,6", "(,,,,,)", "999,1,1,1,1,1,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		addr, err := parsePASV(msg)
		if err != nil {
			var pe *proto.ProtocolError
			if !errors.As(err, &pe) || !strings.HasPrefix(pe.Msg, "PASV reply") {
				t.Errorf("parsePASV(%q): error %q is no protocol error naming what it parsed", msg, err)
			}
			return
		}
		if addr.IP.To4() == nil || addr.Port < 1 || addr.Port > 65535 {
			t.Fatalf("parsePASV(%q) = %v", msg, addr.String())
		}
		// The numbers it read are in the reply (leading zeros aside).
		a := addr.IP.To4()
		six := fmt.Sprintf("%d,%d,%d,%d,%d,%d", a[0], a[1], a[2], a[3], addr.Port>>8, addr.Port&0xff)
		if !strings.Contains(noLeadingZeros(msg), six) {
			t.Errorf("parsePASV(%q) = %v: %q is not in the reply", msg, addr.String(), six)
		}
	})
}

// A FEAT reply that names its features in lower case (RFC 959 section
// 5.3: commands in either case) offers them all the same: MDTM is asked.
func TestFEATLowerCase(t *testing.T) {
	f := newFake(t)
	f.feat = []string{"mdtm", "size", "epsv"}
	f.files["f.bin"] = []byte("payload")
	f.replies["MDTM f.bin"] = "213 20240102030405"
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, b, err := get(t, d, f.url("/f.bin"), quickReq())
	if err != nil || string(b) != "payload" {
		t.Fatalf("got %q, %v", b, err)
	}
	if !strings.Contains(f.sent(), "MDTM f.bin\r\n") || resp.ModTime.Year() != 2024 {
		t.Errorf("sent %q, time %v: want MDTM asked and its time", f.sent(), resp.ModTime)
	}
}

// A login answered 332 (need account) to PASS fails as a login: no
// account is known to send with ACCT (RFC 959 section 5.4).
func TestLoginNeedsAccount(t *testing.T) {
	f := newFake(t)
	f.replies["PASS anonymous@"] = "332 need account"
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	_, _, err := get(t, d, f.url("/f.bin"), quickReq())
	var ce *CommandError
	if !errors.Is(err, proto.ErrLogin) || !errors.As(err, &ce) || ce.Cmd != "PASS ****" || replyCode(err) != StatusNeedAccount {
		t.Fatalf("got %v, want the 332 of PASS as proto.ErrLogin", err)
	}
	if strings.Contains(f.sent(), "ACCT") {
		t.Errorf("sent %q: ACCT with no account", f.sent())
	}
}

// After EPSV is refused once on a connection, its transfers that are not
// pipelined go straight to PASV, and the data connection goes to the
// control connection's peer whatever address PASV names (another loopback
// address here, which recordDial refuses to dial).
func TestPASVAfterEPSVRefused(t *testing.T) {
	f := newFake(t)
	f.noEPSV = true
	f.pasvHost = "127.0.0.2"
	f.files["a"] = []byte("one")
	f.files["b"] = []byte("two")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	rd := &recordDial{}
	for _, name := range []string{"a", "b"} {
		req := quickReq()
		req.Dial = rd.dial
		if _, b, err := get(t, d, f.url("/"+name), req); err != nil || string(b) != string(f.files[name]) {
			t.Fatalf("%s: %q, %v (dialled %q)", name, b, err, rd.addrs)
		}
	}
	d.CloseIdleConnections()
	cmds := strings.Split(strings.TrimSuffix(f.sent(), "\r\n"), "\r\n")
	var verbs []string
	for _, c := range cmds {
		if v, _, _ := strings.Cut(c, " "); v == "EPSV" || v == "PASV" || v == "RETR" {
			verbs = append(verbs, v)
		}
	}
	if want := []string{"EPSV", "PASV", "RETR", "PASV", "RETR"}; !slices.Equal(verbs, want) {
		t.Errorf("sent %v, want %v", verbs, want)
	}
}

// noLeadingZeros drops the leading zeros of each run of digits in s ("007"
// becomes "7", "000" becomes "0").
func noLeadingZeros(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		start := i == 0 || s[i-1] < '0' || s[i-1] > '9'
		if start {
			for s[i] == '0' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
