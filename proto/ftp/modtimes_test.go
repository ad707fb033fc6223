package ftp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/wirecount"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// TestModTimes: ModTimes sends the MDTM (RFC 3659 section 3) of every
// name in one write, after the CWD to the directory, and reads the
// replies in order: each time goes to its name, a refusal (550) or a
// reply that is no time-val leaves that name's time zero, a fraction of a
// second is kept (RFC 3659 section 2.3). A server without MDTM in FEAT
// gets no command. More names than a batch go out in batches of 64.
func TestModTimes(t *testing.T) {
	mdtm := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) // the fake's answer
	for _, c := range []struct {
		name    string
		feat    bool
		names   []string
		replies map[string]string
		want    []time.Time
		writes  []int
	}{
		{"in order", true, []string{"a", "gone", "b", "frac", "junk"},
			map[string]string{"MDTM b": "213 20230405060708", "MDTM frac": "213 20240102030405.25", "MDTM junk": "213 yesterday"},
			[]time.Time{mdtm, {}, time.Date(2023, 4, 5, 6, 7, 8, 0, time.UTC), mdtm.Add(250 * time.Millisecond), {}}, []int{5}},
		{"no MDTM in FEAT", false, []string{"a", "b"}, nil, []time.Time{{}, {}}, nil},
		{"batches", true, manyNames(70), nil, slices.Repeat([]time.Time{mdtm}, 70), []int{64, 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			if !c.feat {
				f.feat = []string{"SIZE", "EPSV", "PASV"}
			}
			for _, n := range c.names {
				if n != "gone" {
					f.files[n] = []byte("x")
				}
			}
			for k, v := range c.replies {
				f.replies[k] = v
			}
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			w := &wirecount.Writes{Verb: "MDTM"}
			req := quickReq()
			req.Dial = w.Dial
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			got, err := d.ModTimes(ctx, uri.MustParse(f.url("/pub/")), req, c.names)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, c.want, time.Time.Equal) {
				t.Errorf("ModTimes = %v, want %v", got, c.want)
			}
			if ws := w.Counts(); !slices.Equal(ws, c.writes) {
				t.Errorf("MDTM commands in writes of %v, want %v", ws, c.writes)
			}
			sent := f.sent()
			if c.feat && !strings.Contains(sent, "CWD pub\r\nMDTM "+c.names[0]+"\r\n") {
				t.Errorf("no CWD pub, then MDTM %s:\n%s", c.names[0], sent)
			}
		})
	}
}

func manyNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("f%03d", i)
	}
	return names
}

// TestModTimesBroken: a reply that no MDTM can have (a 1yz, 3yz or a 2yz
// other than 213) is a *proto.ProtocolError: the replies would no longer
// match the commands. 421 is the server's and ends the connection. The
// connection is not used again: the next call logs in anew.
func TestModTimesBroken(t *testing.T) {
	for _, c := range []struct {
		reply string
		proto bool
	}{
		{"150 opening", true},
		{"200 ok", true},
		{"350 go on", true},
		{"421 closing", false},
	} {
		t.Run(c.reply, func(t *testing.T) {
			f := newFake(t)
			f.files["a"], f.files["b"] = []byte("x"), []byte("y")
			f.replies["MDTM a"] = c.reply
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			dir := uri.MustParse(f.url("/"))
			_, err := d.ModTimes(ctx, dir, quickReq(), []string{"a", "b"})
			var pe *proto.ProtocolError
			if err == nil || errors.As(err, &pe) != c.proto {
				t.Fatalf("ModTimes: %v, want an error (a ProtocolError: %v)", err, c.proto)
			}
			if c.reply == "421 closing" && replyCode(err) != StatusNotAvailable {
				t.Errorf("ModTimes: %v, want the 421", err)
			}
			if _, err := d.ModTimes(ctx, dir, quickReq(), []string{"b"}); err != nil {
				t.Fatal(err)
			}
			if n := f.connCount(); n != 2 {
				t.Errorf("%d connections, want 2 (the broken one not reused)", n)
			}
		})
	}
}
