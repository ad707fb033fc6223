package servertest

import (
	"os"
	"slices"
	"testing"
	"time"
)

// LogOffset returns the current size of the vsftpd log at path (the Log of
// the FTP or FTPS server), to be passed to LogCommandsFrom.
func LogOffset(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("servertest: %v", err)
		return 0
	}
	return fi.Size()
}

// LogCommandsFrom is FTPCommandsFrom for the vsftpd log at path: the
// commands that client ("" for all) sent after byte offset since, once
// they have stopped changing for 150 ms (at most 3 s).
func LogCommandsFrom(t testing.TB, path string, since int64, client string) []string {
	t.Helper()
	var last []string
	stable := time.Now()
	deadline := time.Now().Add(3 * time.Second)
	for {
		entries, err := readFTPLog(path, since)
		if err != nil {
			t.Fatalf("servertest: %v", err)
			return nil
		}
		cur := Commands(entries, client)
		now := time.Now()
		if !slices.Equal(cur, last) {
			last, stable = cur, now
		}
		if now.Sub(stable) >= 150*time.Millisecond || now.After(deadline) {
			return last
		}
		time.Sleep(25 * time.Millisecond)
	}
}
