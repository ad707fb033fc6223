package servertest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Events of the vsftpd log that tests look at most.
const (
	EventCommand  = "FTP command"  // a line the client sent; PASS appears as "PASS <password>"
	EventResponse = "FTP response" // one line of a reply (multi-line replies give one entry per line)
	EventConnect  = "CONNECT"
	EventLogin    = "OK LOGIN"
	EventFailed   = "FAIL LOGIN"
)

// FTPLogEntry is one line of the vsftpd log written with log_ftp_protocol=YES,
// xferlog_std_format=NO, for example
//
//	Sat Nov 21 11:57:34 2026 [pid 21741] [ftp] FTP command: Client "127.0.0.1", "CWD etc"
type FTPLogEntry struct {
	// Time is the server's clock (UTC, one-second resolution).
	Time time.Time
	// PID is the vsftpd process that wrote the line. One session uses more than
	// one pid (the pre-login process, the privileged parent, the logged-in
	// process), so group by Client, not by PID.
	PID int
	// User is the bracketed user after the pid ("ftp", "anonymous", "fetchtest"):
	// empty before USER, the name given to USER until login, then the real
	// account ("ftp" for anonymous sessions).
	User string
	// Event is the word(s) before the colon: EventCommand, EventResponse,
	// EventConnect, EventLogin, EventFailed, "OK DOWNLOAD", "FAIL DOWNLOAD", ...
	Event string
	// Client is the client's IP address.
	Client string
	// Detail is, for commands and responses, the text between the quotes
	// exactly as vsftpd wrote it (quotes inside are not escaped; bytes outside
	// printable ASCII, including the CR LF inside a multi-line reply, appear as
	// '?'). For other events it is the rest of the line after `", "`, or empty.
	Detail string
}

// FTPLogSyntaxError reports a line that is not in vsftpd's log format.
type FTPLogSyntaxError string

func (e FTPLogSyntaxError) Error() string {
	return "servertest: not a vsftpd log line: " + strconv.Quote(string(e))
}

// ParseFTPLogLine parses one line (without its newline) of the vsftpd log.
func ParseFTPLogLine(line string) (FTPLogEntry, error) {
	var e FTPLogEntry
	bad := FTPLogSyntaxError(line)
	rest, ok := e.parseStamp(line)
	if !ok {
		return FTPLogEntry{}, bad
	}
	const client = `: Client "`
	j := strings.Index(rest, client)
	if j < 0 {
		return FTPLogEntry{}, bad
	}
	head := rest[:j]
	rest = rest[j+len(client):]
	if strings.HasPrefix(head, "[") {
		// "[user] EVENT": the user name is written raw, the event never holds "] ".
		i := strings.LastIndex(head, "] ")
		if i < 0 {
			return FTPLogEntry{}, bad
		}
		e.User, head = head[1:i], head[i+2:]
	}
	e.Event = head
	if e.Event == "" {
		return FTPLogEntry{}, bad
	}
	e.Client, rest, ok = strings.Cut(rest, `"`)
	if !ok || e.Client == "" {
		return FTPLogEntry{}, bad
	}
	if e.Detail, ok = ftpLogDetail(e.Event, rest); !ok {
		return FTPLogEntry{}, bad
	}
	return e, nil
}

// parseStamp reads the time and the pid that begin line into e, and
// returns the rest of the line.
func (e *FTPLogEntry) parseStamp(line string) (string, bool) {
	// "Mon Jan _2 15:04:05 2006" is 24 bytes; vsftpd writes the C ctime() form.
	if len(line) < len(time.ANSIC) {
		return "", false
	}
	t, err := time.Parse(time.ANSIC, line[:len(time.ANSIC)])
	if err != nil {
		return "", false
	}
	e.Time = t
	rest, ok := strings.CutPrefix(line[len(time.ANSIC):], " [pid ")
	if !ok {
		return "", false
	}
	pid, rest, ok := strings.Cut(rest, "] ")
	if !ok {
		return "", false
	}
	if e.PID, err = strconv.Atoi(pid); err != nil || e.PID <= 0 {
		return "", false
	}
	return rest, true
}

// ftpLogDetail returns the Detail of an entry of event from rest, what
// follows the client's quoted address.
func ftpLogDetail(event, rest string) (string, bool) {
	quoted := event == EventCommand || event == EventResponse
	if rest == "" {
		return "", !quoted // these always carry their quoted text
	}
	rest, ok := strings.CutPrefix(rest, ", ")
	if !ok {
		return "", false
	}
	if !quoted {
		return rest, true
	}
	if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", false
	}
	return rest[1 : len(rest)-1], true
}

// ParseFTPLog parses every line of r. Lines that are not in vsftpd's format
// make it fail, with the line number.
func ParseFTPLog(r io.Reader) ([]FTPLogEntry, error) {
	var out []FTPLogEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" {
			continue
		}
		e, err := ParseFTPLogLine(line)
		if err != nil {
			return out, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("servertest: reading vsftpd log: %w", err)
	}
	return out, nil
}

// Commands returns the Detail of the EventCommand entries whose Client is
// client ("" for every client), in order.
func Commands(entries []FTPLogEntry, client string) []string {
	var out []string
	for _, e := range entries {
		if e.Event == EventCommand && (client == "" || e.Client == client) {
			out = append(out, e.Detail)
		}
	}
	return out
}

// FTPLogOffset returns the current size of the vsftpd log of the FTP server, to
// be passed to FTPCommands so that a test sees only what came after it.
func FTPLogOffset(t testing.TB) int64 {
	t.Helper()
	s := Get(t, FTP)
	if s.Log == "" {
		missing(t, fmt.Errorf("%w: FETCH_TEST_FTP_LOG is not set", ErrNotConfigured))
		return 0
	}
	return LogOffset(t, s.Log)
}

// FTPCommands returns the commands that any client sent to the FTP server after
// byte offset since of its log (see FTPLogOffset). Other tests, in this package
// or in others run in parallel by go test ./..., may talk to the same server:
// to see only your own commands, dial from an address of UniqueLoopback and use
// FTPCommandsFrom.
func FTPCommands(t testing.TB, since int64) []string {
	t.Helper()
	return FTPCommandsFrom(t, since, "")
}

// FTPCommandsFrom is FTPCommands for the commands of one client IP address
// ("" for all). vsftpd writes a command to its log when it reads it, so the
// last command (often QUIT, sent while the client closes) can land a moment
// after the client returns: FTPCommandsFrom waits until the client's commands
// stop changing for 150 ms, for at most 3 s.
func FTPCommandsFrom(t testing.TB, since int64, client string) []string {
	t.Helper()
	s := Get(t, FTP)
	if s.Log == "" {
		missing(t, fmt.Errorf("%w: FETCH_TEST_FTP_LOG is not set", ErrNotConfigured))
		return nil
	}
	return LogCommandsFrom(t, s.Log, since, client)
}

// readFTPLog parses the log from byte offset since. A line still being written
// (no newline yet) is left for the next read.
func readFTPLog(path string, since int64) ([]FTPLogEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(since, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil, err
	}
	if i := strings.LastIndexByte(string(data), '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	return ParseFTPLog(strings.NewReader(string(data)))
}
