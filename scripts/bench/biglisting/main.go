// Command biglisting serves, on 127.0.0.1, one FTP directory whose LIST
// answer is at least -bytes bytes of ls -l lines (the lines of the mirror
// package's TestMirrorListingRSS), and prints its address, so that the
// peak memory of a mirror of a large listing can be measured on the fetch
// command in a process of its own (BENCHMARKS.md, "A 60 MB listing"):
//
//	go run ./scripts/bench/biglisting &           # prints 127.0.0.1:PORT
//	/usr/bin/time -v fetch mirror -s --exclude '*.txt' ftp://127.0.0.1:PORT/ DIR
//
// It serves until it is interrupted.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/rfc1738/fetch/internal/testrig/localserver"
)

func main() {
	size := flag.Int("bytes", 60_000_000, "the least size of the LIST answer, in lines of 110 bytes")
	flag.Parse()
	var b strings.Builder
	for i := range (*size + 109) / 110 {
		fmt.Fprintf(&b, "-rw-r--r--   1 ftp      ftp      %8d Jan 01  2024 file-%07d-abcdefghijklmnopqrstuvwxyzabcdefghij.txt\r\n", i, i)
	}
	s := &localserver.RawFTP{Listings: map[string]string{"/": b.String()}}
	if err := localserver.StartRawFTP(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	fmt.Printf("%s %d\n", s.Addr(), b.Len())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
}
