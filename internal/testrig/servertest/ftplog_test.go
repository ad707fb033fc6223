package servertest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// Lines copied from a vsftpd 3.0.3 log written with log_ftp_protocol=YES
// (scripts/servers.sh), one row per shape the parser must handle.
var ftpLogLineTests = []struct {
	name string
	in   string
	want FTPLogEntry
	bad  bool
}{
	{"connect", `Sat Nov 21 11:57:34 2026 [pid 21740] CONNECT: Client "127.0.0.1"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 57, 34, 0, time.UTC), PID: 21740, Event: EventConnect, Client: "127.0.0.1"}, false},
	{"greeting before login", `Sat Nov 21 11:57:34 2026 [pid 21740] FTP response: Client "127.0.0.1", "220 (vsFTPd 3.0.3)"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 57, 34, 0, time.UTC), PID: 21740, Event: EventResponse, Client: "127.0.0.1", Detail: "220 (vsFTPd 3.0.3)"}, false},
	{"USER before login has no bracket", `Sat Nov 21 11:57:34 2026 [pid 21740] FTP command: Client "127.0.0.1", "USER anonymous"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 57, 34, 0, time.UTC), PID: 21740, Event: EventCommand, Client: "127.0.0.1", Detail: "USER anonymous"}, false},
	{"PASS is masked", `Sat Nov 21 11:57:34 2026 [pid 21740] [anonymous] FTP command: Client "127.0.0.1", "PASS <password>"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 57, 34, 0, time.UTC), PID: 21740, User: "anonymous", Event: EventCommand, Client: "127.0.0.1", Detail: "PASS <password>"}, false},
	{"login line", `Sat Nov 21 11:57:34 2026 [pid 21739] [ftp] OK LOGIN: Client "127.0.0.1", anon password "ftp@example.com"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 57, 34, 0, time.UTC), PID: 21739, User: "ftp", Event: EventLogin, Client: "127.0.0.1", Detail: `anon password "ftp@example.com"`}, false},
	{"CWD after login", `Sat Nov 21 11:57:34 2026 [pid 21741] [ftp] FTP command: Client "127.0.0.1", "CWD etc"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 57, 34, 0, time.UTC), PID: 21741, User: "ftp", Event: EventCommand, Client: "127.0.0.1", Detail: "CWD etc"}, false},
	{"space-padded day, other client", `Sat Feb  3 04:05:06 2001 [pid 7] [fetchtest] FTP command: Client "127.64.1.2", "RETR hello.txt"`,
		FTPLogEntry{Time: time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC), PID: 7, User: "fetchtest", Event: EventCommand, Client: "127.64.1.2", Detail: "RETR hello.txt"}, false},
	// vsftpd does not escape quotes and writes '?' for bytes outside printable ASCII.
	{"unescaped quote", `Sat Nov 21 11:58:25 2026 [pid 26948] [ftp] FTP command: Client "127.0.0.9", "CWD q"uote"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 58, 25, 0, time.UTC), PID: 26948, User: "ftp", Event: EventCommand, Client: "127.0.0.9", Detail: `CWD q"uote`}, false},
	{"unprintable shown as ?", `Sat Nov 21 11:58:25 2026 [pid 26948] [ftp] FTP command: Client "127.0.0.9", "CWD a?b??"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 58, 25, 0, time.UTC), PID: 26948, User: "ftp", Event: EventCommand, Client: "127.0.0.9", Detail: "CWD a?b??"}, false},
	{"spaces kept", `Sat Nov 21 11:58:25 2026 [pid 26948] [ftp] FTP command: Client "127.0.0.9", "CWD  two  spaces "`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 58, 25, 0, time.UTC), PID: 26948, User: "ftp", Event: EventCommand, Client: "127.0.0.9", Detail: "CWD  two  spaces "}, false},
	{"bracket in argument", `Sat Nov 21 11:58:25 2026 [pid 1] [ftp] FTP command: Client "127.0.0.1", "CWD [x] y"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 58, 25, 0, time.UTC), PID: 1, User: "ftp", Event: EventCommand, Client: "127.0.0.1", Detail: "CWD [x] y"}, false},
	// RFC 959 section 4.2: multi-line replies; vsftpd logs each line.
	{"multi-line reply line", `Sat Nov 21 11:57:42 2026 [pid 22397] [ftp] FTP response: Client "127.0.0.1", " EPRT??"`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 57, 42, 0, time.UTC), PID: 22397, User: "ftp", Event: EventResponse, Client: "127.0.0.1", Detail: " EPRT??"}, false},
	{"download", `Sat Nov 21 11:57:34 2026 [pid 21741] [ftp] OK DOWNLOAD: Client "127.0.0.1", "/etc/motd", 200 bytes, 659.84Kbyte/sec`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 57, 34, 0, time.UTC), PID: 21741, User: "ftp", Event: "OK DOWNLOAD", Client: "127.0.0.1", Detail: `"/etc/motd", 200 bytes, 659.84Kbyte/sec`}, false},
	{"empty command", `Sat Nov 21 11:57:34 2026 [pid 3] [ftp] FTP command: Client "127.0.0.1", ""`,
		FTPLogEntry{Time: time.Date(2026, 11, 21, 11, 57, 34, 0, time.UTC), PID: 3, User: "ftp", Event: EventCommand, Client: "127.0.0.1", Detail: ""}, false},
	{"empty line", "", FTPLogEntry{}, true},
	{"command without text", `Sat Feb 01 00:00:00 2000 [pid 1] FTP command: Client "0"`, FTPLogEntry{}, true}, // found by FuzzParseFTPLogLine
	{"xferlog format", "Sat Nov 21 11:57:34 2026 1 127.0.0.1 200 /etc/motd b _ o a ftp@example.com ftp 0 * c", FTPLogEntry{}, true},
	{"bad date", `Xyz Nov 21 11:57:34 2026 [pid 1] CONNECT: Client "127.0.0.1"`, FTPLogEntry{}, true},
	{"pid not a number", `Sat Nov 21 11:57:34 2026 [pid x] CONNECT: Client "127.0.0.1"`, FTPLogEntry{}, true},
	{"pid zero", `Sat Nov 21 11:57:34 2026 [pid 0] CONNECT: Client "127.0.0.1"`, FTPLogEntry{}, true},
	{"no client", `Sat Nov 21 11:57:34 2026 [pid 1] CONNECT`, FTPLogEntry{}, true},
	{"unterminated client", `Sat Nov 21 11:57:34 2026 [pid 1] CONNECT: Client "127.0.0.1`, FTPLogEntry{}, true},
	{"command without quotes", `Sat Nov 21 11:57:34 2026 [pid 1] FTP command: Client "127.0.0.1", CWD x`, FTPLogEntry{}, true},
	{"command half quoted", `Sat Nov 21 11:57:34 2026 [pid 1] FTP command: Client "127.0.0.1", "`, FTPLogEntry{}, true},
	{"junk after client", `Sat Nov 21 11:57:34 2026 [pid 1] CONNECT: Client "127.0.0.1"x`, FTPLogEntry{}, true},
	{"no event", `Sat Nov 21 11:57:34 2026 [pid 1] [ftp] : Client "127.0.0.1"`, FTPLogEntry{}, true},
}

func TestParseFTPLogLine(t *testing.T) {
	for _, tt := range ftpLogLineTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFTPLogLine(tt.in)
			if tt.bad {
				var se FTPLogSyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("ParseFTPLogLine(%q) = %+v, %v; want FTPLogSyntaxError", tt.in, got, err)
				}
				if got != (FTPLogEntry{}) {
					t.Errorf("ParseFTPLogLine(%q) returned %+v with its error, want the zero entry", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFTPLogLine(%q) error = %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseFTPLogLine(%q)\n got %+v\nwant %+v", tt.in, got, tt.want)
			}
		})
	}
}

// sampleLog is two interleaved sessions from different client addresses, as two
// tests running at once produce them.
const sampleLog = `Sat Nov 21 11:57:34 2026 [pid 100] CONNECT: Client "127.64.0.1"
Sat Nov 21 11:57:34 2026 [pid 100] FTP response: Client "127.64.0.1", "220 (vsFTPd 3.0.3)"
Sat Nov 21 11:57:34 2026 [pid 100] FTP command: Client "127.64.0.1", "USER anonymous"
Sat Nov 21 11:57:34 2026 [pid 200] CONNECT: Client "127.64.0.2"
Sat Nov 21 11:57:34 2026 [pid 100] [anonymous] FTP response: Client "127.64.0.1", "331 Please specify the password."
Sat Nov 21 11:57:34 2026 [pid 100] [anonymous] FTP command: Client "127.64.0.1", "PASS <password>"
Sat Nov 21 11:57:34 2026 [pid 200] FTP command: Client "127.64.0.2", "USER fetchtest"
Sat Nov 21 11:57:34 2026 [pid 99] [ftp] OK LOGIN: Client "127.64.0.1", anon password "x@"
Sat Nov 21 11:57:34 2026 [pid 101] [ftp] FTP response: Client "127.64.0.1", "230 Login successful."

Sat Nov 21 11:57:34 2026 [pid 101] [ftp] FTP command: Client "127.64.0.1", "CWD etc"
Sat Nov 21 11:57:35 2026 [pid 200] [fetchtest] FTP command: Client "127.64.0.2", "PASS <password>"
Sat Nov 21 11:57:37 2026 [pid 199] [fetchtest] FAIL LOGIN: Client "127.64.0.2"
Sat Nov 21 11:57:37 2026 [pid 101] [ftp] FTP command: Client "127.64.0.1", "RETR motd"
Sat Nov 21 11:57:37 2026 [pid 101] [ftp] FTP command: Client "127.64.0.1", "QUIT"
`

func TestParseFTPLog(t *testing.T) {
	entries, err := ParseFTPLog(strings.NewReader(sampleLog))
	if err != nil {
		t.Fatalf("ParseFTPLog: %v", err)
	}
	if len(entries) != 14 {
		t.Fatalf("ParseFTPLog: %d entries, want 14 (blank lines skipped)", len(entries))
	}
	for _, tt := range []struct {
		client string
		want   []string
	}{
		{"127.64.0.1", []string{"USER anonymous", "PASS <password>", "CWD etc", "RETR motd", "QUIT"}},
		{"127.64.0.2", []string{"USER fetchtest", "PASS <password>"}},
		{"", []string{"USER anonymous", "PASS <password>", "USER fetchtest", "CWD etc", "PASS <password>", "RETR motd", "QUIT"}},
		{"127.0.0.1", nil},
	} {
		if got := Commands(entries, tt.client); !slices.Equal(got, tt.want) {
			t.Errorf("Commands(%q) = %q, want %q", tt.client, got, tt.want)
		}
	}
	if e := entries[11]; e.Event != EventFailed || e.User != "fetchtest" {
		t.Errorf("entry 11 = %+v, want the FAIL LOGIN of fetchtest", e)
	}

	_, err = ParseFTPLog(strings.NewReader(sampleLog + "garbage\n"))
	var se FTPLogSyntaxError
	if !errors.As(err, &se) {
		t.Errorf("ParseFTPLog with a bad last line: error %v, want FTPLogSyntaxError", err)
	}
}

func FuzzParseFTPLogLine(f *testing.F) {
	for _, tt := range ftpLogLineTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, line string) {
		e, err := ParseFTPLogLine(line)
		if err != nil {
			var se FTPLogSyntaxError
			if !errors.As(err, &se) || string(se) != line || e != (FTPLogEntry{}) {
				t.Fatalf("ParseFTPLogLine(%q) = %+v, %v", line, e, err)
			}
			return
		}
		if e.PID <= 0 || e.Event == "" || e.Client == "" || e.Time.IsZero() {
			t.Fatalf("ParseFTPLogLine(%q) = %+v: missing fields", line, e)
		}
		// Every part comes from the line, in order.
		rest := line
		for _, part := range []string{e.User, e.Event, e.Client, e.Detail} {
			i := strings.Index(rest, part)
			if i < 0 {
				t.Fatalf("ParseFTPLogLine(%q): %q not found in order", line, part)
			}
			rest = rest[i+len(part):]
		}
		if (e.Event == EventCommand || e.Event == EventResponse) && !strings.HasSuffix(line, `"`+e.Detail+`"`) {
			t.Fatalf("ParseFTPLogLine(%q): detail %q is not the final quoted text", line, e.Detail)
		}
	})
}
